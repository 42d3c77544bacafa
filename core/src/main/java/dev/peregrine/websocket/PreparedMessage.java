package dev.peregrine.websocket;

import dev.peregrine.websocket.codec.FrameHeader;
import dev.peregrine.websocket.codec.FrameWriter;

import java.nio.charset.StandardCharsets;

/**
 * A message encoded once, header and payload, for sending to many sessions
 * ({@link WebSocketSession#send(PreparedMessage, SendCallback)}): a broadcast copies these bytes into
 * each connection's output and encodes nothing more. Never compressed (each connection's deflate
 * context differs). Immutable; thread: any.
 */
public final class PreparedMessage {
    private final byte[] frame;

    private PreparedMessage(byte[] frame) {
        this.frame = frame;
    }

    public static PreparedMessage text(CharSequence text) {
        byte[] b = text.toString().getBytes(StandardCharsets.UTF_8);
        return new PreparedMessage(FrameWriter.frame(FrameWriter.FIN | FrameHeader.OP_TEXT, b, 0, b.length));
    }

    public static PreparedMessage binary(byte[] data) {
        return new PreparedMessage(FrameWriter.frame(FrameWriter.FIN | FrameHeader.OP_BINARY, data, 0, data.length));
    }

    /** The whole frame; not to be modified. */
    public byte[] frameBytes() {
        return frame;
    }
}
