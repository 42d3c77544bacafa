package dev.peregrine.websocket.engine;

import dev.peregrine.loop.Connection;
import dev.peregrine.loop.EventLoop;
import dev.peregrine.websocket.Payload;
import dev.peregrine.websocket.PreparedMessage;
import dev.peregrine.websocket.SendCallback;
import dev.peregrine.websocket.WebSocketSession;
import dev.peregrine.websocket.codec.CloseCodes;
import dev.peregrine.websocket.codec.FrameHeader;
import dev.peregrine.websocket.codec.FrameWriter;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The {@link WebSocketSession} of one connection: where sends from any thread meet the connection's
 * loop. A send runs at once when it comes from the connection's own callback (its loop thread, its
 * turn: the batch being built is this connection's) and nothing this loop queued for it is still
 * waiting; otherwise the data is copied and a task goes through the loop's queue
 * ({@link EventLoop#execute}), which writes the frame, then the batch, and calls the callback. So
 * sends made by one thread keep their order.
 *
 * <p>Partial messages: {@link #partialOpcode} says which message is open in fragments; it is checked
 * and set at the call (under this object's lock), so a mistake throws where it is made.
 *
 * <p>Thread: any, as {@link WebSocketSession} says; {@link #loopQueued} is the loop's own.
 */
final class WsSession implements WebSocketSession {
    private static final System.Logger LOG = System.getLogger("dev.peregrine.websocket");

    private final String path;
    private final Map<String, String> pathParams;
    private final String subprotocol;
    private final boolean compressed;
    private final InetSocketAddress remote;
    private volatile WebSocketProtocol protocol;
    private volatile EventLoop loop;
    private volatile boolean open = true;
    private volatile Object attachment;
    /** Guarded by this: the opcode of the message being sent in fragments, or 0. */
    private int partialOpcode;
    /** Loop thread only: tasks this loop queued for the session and not yet run. */
    private int loopQueued;

    WsSession(String path, Map<String, String> pathParams, String subprotocol, boolean compressed, InetSocketAddress remote) {
        this.path = path;
        this.pathParams = pathParams;
        this.subprotocol = subprotocol;
        this.compressed = compressed;
        this.remote = remote;
    }

    void bind(WebSocketProtocol p, Connection c) {
        protocol = p;
        loop = c.context().eventLoop();
    }

    void markClosed() {
        open = false;
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public String pathParam(String name) {
        return pathParams.get(name);
    }

    @Override
    public String subprotocol() {
        return subprotocol;
    }

    @Override
    public boolean compressed() {
        return compressed;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public Object attachment() {
        return attachment;
    }

    @Override
    public void attach(Object attachment) {
        this.attachment = attachment;
    }

    // ---------------------------------------------------------------- sends

    @Override
    public void sendText(CharSequence text) {
        sendText(text, null);
    }

    @Override
    public void sendText(CharSequence text, SendCallback callback) {
        byte[] b = text.toString().getBytes(StandardCharsets.UTF_8);
        whole(FrameHeader.OP_TEXT, ByteBuffer.wrap(b), callback);
    }

    @Override
    public void sendBinary(byte[] data) {
        sendBinary(data, null);
    }

    @Override
    public void sendBinary(byte[] data, SendCallback callback) {
        whole(FrameHeader.OP_BINARY, ByteBuffer.wrap(data), callback);
    }

    @Override
    public void sendBinary(ByteBuffer data, SendCallback callback) {
        if (direct()) {
            whole(FrameHeader.OP_BINARY, data, callback);
            return;
        }
        byte[] copy = new byte[data.remaining()];
        data.get(data.position(), copy);
        whole(FrameHeader.OP_BINARY, ByteBuffer.wrap(copy), callback);
    }

    @Override
    public void send(Payload payload, SendCallback callback) {
        int op = payload.isText() ? FrameHeader.OP_TEXT : FrameHeader.OP_BINARY;
        if (payload instanceof PayloadView && direct()) {
            PayloadView v = (PayloadView) payload; // echo: from where it lies into the output
            checkNoPartial();
            done(callback, protocol.send(FrameWriter.FIN | op, v.buffer(), v.start(), v.length(), true));
            return;
        }
        whole(op, ByteBuffer.wrap(payload.bytes()), callback);
    }

    @Override
    public void send(PreparedMessage message, SendCallback callback) {
        checkNoPartial();
        byte[] frame = message.frameBytes();
        submit(p -> p.sendRaw(frame), callback);
    }

    @Override
    public void sendTextPart(CharSequence part, boolean last, SendCallback callback) {
        byte[] b = part.toString().getBytes(StandardCharsets.UTF_8);
        fragment(FrameHeader.OP_TEXT, b, last, callback);
    }

    @Override
    public void sendBinaryPart(byte[] part, boolean last, SendCallback callback) {
        fragment(FrameHeader.OP_BINARY, part.clone(), last, callback);
    }

    @Override
    public void ping(byte[] data) {
        if (data.length > 125) {
            throw new IllegalArgumentException("a ping carries at most 125 bytes (RFC 6455 §5.5): " + data.length);
        }
        byte[] copy = data.clone();
        submit(p -> p.ping(copy), null);
    }

    @Override
    public void close(int code, String reason) {
        if (!CloseCodes.mayBeSent(code)) {
            throw new IllegalArgumentException("close code " + code + " may not be sent (RFC 6455 §7.4)");
        }
        if (reason.getBytes(StandardCharsets.UTF_8).length > 123) {
            throw new IllegalArgumentException("a close reason is at most 123 UTF-8 bytes (RFC 6455 §5.5)");
        }
        submit(p -> {
            p.startClose(code, reason);
            return true;
        }, null);
    }

    private void whole(int op, ByteBuffer data, SendCallback callback) {
        checkNoPartial();
        int from = data.position();
        int length = data.remaining();
        submit(p -> p.send(FrameWriter.FIN | op, data, from, length, true), callback);
    }

    private void fragment(int op, byte[] data, boolean last, SendCallback callback) {
        int first;
        synchronized (this) {
            if (partialOpcode == 0) {
                first = op;
                partialOpcode = last ? 0 : op;
            } else if (partialOpcode != op) {
                throw new IllegalStateException("a " + (partialOpcode == FrameHeader.OP_TEXT ? "text" : "binary")
                        + " message is being sent in parts: finish it first");
            } else {
                first = FrameHeader.OP_CONTINUATION;
                if (last) {
                    partialOpcode = 0;
                }
            }
        }
        int b0 = first | (last ? FrameWriter.FIN : 0);
        submit(p -> p.send(b0, ByteBuffer.wrap(data), 0, data.length, false), callback);
    }

    private synchronized void checkNoPartial() {
        if (partialOpcode != 0) {
            throw new IllegalStateException("a message is being sent in parts: send its last part first");
        }
    }

    /** Whether a send may write into the batch now: the connection's own turn, nothing queued before it. */
    private boolean direct() {
        WebSocketProtocol p = protocol;
        EventLoop l = loop;
        return p != null && l.inEventLoop() && p.inTurn() && loopQueued == 0;
    }

    private interface Send {
        boolean run(WebSocketProtocol p);
    }

    private void submit(Send send, SendCallback callback) {
        WebSocketProtocol p = protocol;
        if (!open || p == null) {
            done(callback, false);
            return;
        }
        if (direct()) {
            done(callback, send.run(p));
            return;
        }
        EventLoop l = loop;
        boolean fromLoop = l.inEventLoop();
        if (fromLoop) {
            loopQueued++;
        }
        l.execute(() -> {
            if (fromLoop) {
                loopQueued--;
            }
            boolean ok = !p.connection().isClosed() && send.run(p);
            p.flushFromTask();
            done(callback, ok);
        });
    }

    private static void done(SendCallback callback, boolean ok) {
        if (callback == null) {
            return;
        }
        try {
            callback.done(ok ? null : new IllegalStateException("the WebSocket session is closed"));
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.WARNING, "a WebSocket SendCallback threw", t);
        }
    }
}
