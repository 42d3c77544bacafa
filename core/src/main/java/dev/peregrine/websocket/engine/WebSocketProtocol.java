package dev.peregrine.websocket.engine;

import dev.peregrine.loop.Connection;
import dev.peregrine.loop.Protocol;
import dev.peregrine.WebSocketHandler;
import dev.peregrine.WebSocketOptions;
import dev.peregrine.websocket.codec.CloseCodes;
import dev.peregrine.websocket.codec.FrameHeader;
import dev.peregrine.websocket.codec.FrameWriter;
import dev.peregrine.websocket.codec.Masking;
import dev.peregrine.websocket.codec.Utf8Validator;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The WebSocket protocol (RFC 6455) on one connection, after the handshake's {@code 101}
 * ({@link WebSocketRoute} switched a server connection to it, {@link WebSocketClientEngine} a client's).
 * The role is a {@link MaskSource}: a server's frames go unmasked and every frame it reads must be
 * masked; a client ({@code mask} non-null) masks each frame with a fresh key, and a masked frame from
 * the server is a protocol error (§5.1, 1002). The rest is the same for both. Frames are read in place from the bytes
 * the connection offers: a header is parsed only when whole (at most 14 bytes are left unconsumed
 * between reads), a data frame's payload is unmasked in place and consumed as it arrives (so it is
 * never unmasked twice), a control frame (at most 125 bytes) is consumed only when whole. A whole
 * unfragmented, uncompressed message that arrived in one read is handed to the handler where it lies;
 * other messages are gathered by {@link InboundMessage}.
 *
 * <p><b>States</b> (beside the connection's own close states):
 * <pre>
 *   OPEN --data/ping/pong--&gt; OPEN   (a ping is answered with its pong at once, §5.5.2)
 *   OPEN --close frame received--&gt; close frame echoed (same code, §5.5.1), onClose, DONE
 *   OPEN --session.close / idle / no pong / shutdown--&gt; our close frame sent: CLOSE_SENT
 *   CLOSE_SENT --peer's close frame--&gt; onClose(peer's code), DONE
 *   CLOSE_SENT --closeTimeout--&gt; connection closed, onClose(1006)
 *   OPEN / CLOSE_SENT --protocol error--&gt; close frame with the code, onClose(code), DONE ("fail", §7.1.7)
 *   OPEN / CLOSE_SENT --peer's FIN or reset without a close frame--&gt; onClose(1006), closed
 *   DONE: the connection is CLOSING: output written, FIN sent (the server closes TCP first,
 *         §7.1.1), input discarded until EOF or drainTimeout; every lent buffer returns at the close
 * </pre>
 * Close codes used: 1000 (normal, session.close), 1001 (idle, no pong, shutdown), 1002 (unmasked
 * frame §5.1, reserved bits without an extension §5.2, unknown opcode, fragmented or oversized control
 * frame §5.5, continuation out of place §5.4, a bad close payload §7.1.5), 1007 (invalid UTF-8 in text
 * or a close reason §8.1, undecodable compressed data), 1009 (maxFrameSize, maxMessageSize after
 * inflation), 1011 (a handler callback threw).
 *
 * <p><b>Timer phases</b> (one node, the connection's):
 * <pre>
 *   phase   while                                clock restarts on       on expiry
 *   IDLE    OPEN, no keep-alive ping             any traffic             close 1001
 *   PING    OPEN, pingInterval set               any traffic             send a ping, then PONG
 *   PONG    a keep-alive ping unanswered          any traffic             close 1001
 *   CLOSE   CLOSE_SENT                           never                   the connection closes (1006)
 * </pre>
 *
 * <p>Thread: the connection's loop thread; other threads reach it through {@link WsSession}.
 */
final class WebSocketProtocol implements Protocol {
    private static final System.Logger LOG = System.getLogger("dev.peregrine.websocket");

    static final int OPEN = 0;
    static final int CLOSE_SENT = 1;
    static final int DONE = 2;

    // Numbers of their own, apart from HTTP/1.1's (1-3): the connection re-arms its timer only when the
    // phase number changes, and the switch must re-arm it for the WebSocket's own timeouts.
    private static final int T_IDLE = 11;
    private static final int T_PING = 12;
    private static final int T_PONG = 13;
    private static final int T_CLOSE = 14;

    private final WebSocketOptions opts;
    private final WebSocketHandler handler;
    private final DeflateParams deflate;
    /** Null on a server; a client's source of masking keys. */
    private final MaskSource mask;
    /** The route's callbacks run off the loop ({@code execution(BLOCKING)}), or null: inline. */
    private final OffLoopCallbacks offLoop;
    final WsSession session;
    private final FrameHeader header = new FrameHeader();
    private final PayloadView view = new PayloadView();
    private Connection c;
    private InboundMessage message;
    private MessageDeflater deflater;

    private int state = OPEN;
    /** A callback or event of this connection is running: its sends go straight into the batch. */
    private boolean inTurn;
    private boolean closeNotified;
    private boolean awaitingPong;
    /** A data frame's payload is arriving: how much is still to come, how much came (the mask's rotation). */
    private boolean inFrame;
    private boolean frameFin;
    private long frameRemaining;
    private long maskOffset;
    private int maskKey;

    WebSocketProtocol(WebSocketOptions opts, WebSocketHandler handler, DeflateParams deflate, WsSession session) {
        this(opts, handler, deflate, session, null);
    }

    WebSocketProtocol(WebSocketOptions opts, WebSocketHandler handler, DeflateParams deflate, WsSession session, MaskSource mask) {
        this.opts = opts;
        this.handler = handler;
        this.deflate = deflate;
        this.session = session;
        this.mask = mask;
        this.offLoop = handler instanceof OffLoopCallbacks ? (OffLoopCallbacks) handler : null;
        if (offLoop != null) {
            offLoop.bind(this);
        }
    }

    @Override
    public void onOpen(Connection c) {
        this.c = c;
        this.message = new InboundMessage(c.context().pool(), opts.maxMessageSize());
        if (deflate != null && (mask == null ? deflate.serverCompresses : deflate.clientCompresses)) {
            deflater = new MessageDeflater(c.context().pool(),
                    mask == null ? deflate.serverNoContextTakeover : deflate.clientNoContextTakeover);
        }
        session.bind(this, c);
        inTurn = true; // the 101 is in this connection's batch: frames sent from onOpen follow it
        try {
            handler.onOpen(session);
        } catch (Throwable t) {
            callbackFailed("onOpen", t);
        } finally {
            inTurn = false;
        }
    }

    boolean inTurn() {
        return inTurn;
    }

    int state() {
        return state;
    }

    // ---------------------------------------------------------------- input

    @Override
    public int onInput(Connection c, ByteBuffer buf, int start, int end) {
        inTurn = true;
        try {
            return frames(buf, start, end);
        } finally {
            inTurn = false;
        }
    }

    private int frames(ByteBuffer buf, int start, int end) {
        int pos = start;
        while (pos < end) {
            if (state == DONE || !c.isOpen()) {
                return end; // nothing after a close frame or a failure is acted on
            }
            if (offLoop != null && offLoop.stall()) {
                return pos; // the callbacks are behind: the connection holds the rest, then stops reading
            }
            if (!inFrame) {
                int h = header.parse(buf, pos, end);
                if (h == FrameHeader.NEED_MORE) {
                    return pos;
                }
                if (h == FrameHeader.BAD_LENGTH) {
                    return fail(CloseCodes.PROTOCOL_ERROR, "bad length", end);
                }
                int code = check();
                if (code != 0) {
                    return fail(code, code == CloseCodes.TOO_BIG ? "frame or message too big" : "protocol error", end);
                }
                int op = header.opcode();
                long len = header.payloadLength();
                if (FrameHeader.isControl(op)) {
                    if (end - pos - h < len) {
                        return pos; // a control frame is taken whole (at most 139 bytes wait)
                    }
                    int p = pos + h;
                    Masking.unmask(buf, p, p + (int) len, header.maskKey(), 0);
                    control(op, buf, p, (int) len);
                    pos = p + (int) len;
                    continue;
                }
                pos += h;
                if (op != FrameHeader.OP_CONTINUATION) {
                    message.start(op, (header.rsv() & 4) != 0);
                    if (header.fin() && !message.compressed() && end - pos >= len) {
                        // The common case: a whole message in this read, handed over where it lies.
                        int n = (int) len;
                        Masking.unmask(buf, pos, pos + n, header.maskKey(), 0);
                        if (op == FrameHeader.OP_TEXT && !(message.utf8.feed(buf, pos, pos + n) && message.utf8.complete())) {
                            return fail(CloseCodes.INVALID_PAYLOAD, "invalid UTF-8", end);
                        }
                        deliver(buf, pos, n, op == FrameHeader.OP_TEXT);
                        message.release();
                        pos += n;
                        continue;
                    }
                }
                inFrame = true;
                frameFin = header.fin();
                frameRemaining = len;
                maskOffset = 0;
                maskKey = header.maskKey();
            }
            int n = (int) Math.min(frameRemaining, end - pos);
            if (n > 0) {
                Masking.unmask(buf, pos, pos + n, maskKey, maskOffset);
                int code = message.append(buf, pos, n);
                if (code != 0) {
                    return fail(code, code == CloseCodes.TOO_BIG ? "message too big" : "invalid payload", end);
                }
                pos += n;
                frameRemaining -= n;
                maskOffset += n;
            }
            if (frameRemaining == 0) {
                inFrame = false;
                if (frameFin) {
                    int code = message.finish();
                    if (code != 0) {
                        return fail(code, code == CloseCodes.TOO_BIG ? "message too big" : "invalid payload", end);
                    }
                    deliver(message.buffer(), 0, message.length(), message.text());
                    message.release();
                }
            }
        }
        return pos;
    }

    /** The frame header's protocol rules; 0 when it may be read on. */
    private int check() {
        int op = header.opcode();
        long len = header.payloadLength();
        if (header.masked() != (mask == null)) {
            return CloseCodes.PROTOCOL_ERROR; // §5.1: a client masks every frame, a server none
        }
        if (!FrameHeader.isKnown(op)) {
            return CloseCodes.PROTOCOL_ERROR; // §5.2: reserved opcode
        }
        int rsv = header.rsv();
        if (rsv != 0 && (rsv != 4 || deflate == null || op == FrameHeader.OP_CONTINUATION || FrameHeader.isControl(op))) {
            return CloseCodes.PROTOCOL_ERROR; // §5.2; RFC 7692 §6: RSV1 only on a message's first frame
        }
        if (FrameHeader.isControl(op)) {
            return !header.fin() || len > 125 ? CloseCodes.PROTOCOL_ERROR : 0; // §5.5
        }
        if (op == FrameHeader.OP_CONTINUATION ? message.opcode() == 0 : message.opcode() != 0) {
            return CloseCodes.PROTOCOL_ERROR; // §5.4: a continuation without a message, or a message inside one
        }
        if (len > opts.maxFrameSize()) {
            return CloseCodes.TOO_BIG;
        }
        boolean compressed = op == FrameHeader.OP_CONTINUATION ? message.compressed() : (rsv & 4) != 0;
        if (!compressed && (op == FrameHeader.OP_CONTINUATION ? message.length() : 0) + len > opts.maxMessageSize()) {
            return CloseCodes.TOO_BIG; // known from the header already (compressed: counted after inflation)
        }
        return 0;
    }

    private void control(int op, ByteBuffer buf, int p, int len) {
        switch (op) {
            case FrameHeader.OP_PING:
                if (state == OPEN) {
                    FrameOutput.frame(c, FrameWriter.FIN | FrameHeader.OP_PONG, buf, p, len, mask);
                }
                view.set(buf, p, len, false);
                try {
                    handler.onPing(session, view);
                } catch (Throwable t) {
                    callbackFailed("onPing", t);
                } finally {
                    view.clear();
                }
                break;
            case FrameHeader.OP_PONG:
                awaitingPong = false;
                view.set(buf, p, len, false);
                try {
                    handler.onPong(session, view);
                } catch (Throwable t) {
                    callbackFailed("onPong", t);
                } finally {
                    view.clear();
                }
                break;
            default:
                closeReceived(buf, p, len);
        }
    }

    /** §5.5.1, §7.1.5: a close frame is empty, or a valid code and a UTF-8 reason. */
    private void closeReceived(ByteBuffer buf, int p, int len) {
        int code = CloseCodes.NO_STATUS;
        String reason = "";
        if (len == 1) {
            fail(CloseCodes.PROTOCOL_ERROR, "close payload of one byte", 0);
            return;
        }
        if (len >= 2) {
            code = ((buf.get(p) & 0xFF) << 8) | (buf.get(p + 1) & 0xFF);
            if (!CloseCodes.mayBeSent(code)) {
                fail(CloseCodes.PROTOCOL_ERROR, "invalid close code", 0);
                return;
            }
            if (!Utf8Validator.isValid(buf, p + 2, p + len)) {
                fail(CloseCodes.INVALID_PAYLOAD, "invalid UTF-8 in close reason", 0);
                return;
            }
            byte[] r = new byte[len - 2];
            buf.get(p + 2, r);
            reason = new String(r, StandardCharsets.UTF_8);
        }
        if (state == OPEN) {
            writeClose(code == CloseCodes.NO_STATUS ? 0 : code, ""); // echo the code (§5.5.1)
        }
        done(code, reason);
    }

    private void deliver(ByteBuffer buf, int start, int length, boolean text) {
        if (state != OPEN) {
            return; // after our close frame, data is read and dropped (§5.5.1)
        }
        view.set(buf, start, length, text);
        try {
            if (text) {
                handler.onText(session, view);
            } else {
                handler.onBinary(session, view);
            }
        } catch (Throwable t) {
            callbackFailed(text ? "onText" : "onBinary", t);
        } finally {
            view.clear();
        }
    }

    private void callbackFailed(String which, Throwable t) {
        LOG.log(System.Logger.Level.WARNING, "WebSocket handler " + handler.getClass().getName() + "." + which
                + " threw; closing the connection with 1011", t);
        if (state != DONE) {
            if (state == OPEN) {
                writeClose(CloseCodes.INTERNAL_ERROR, "");
            }
            done(CloseCodes.INTERNAL_ERROR, "");
        }
    }

    /** Fails the connection (§7.1.7): a close frame with {@code code}, then the connection ends. Returns {@code ret}. */
    private int fail(int code, String reason, int ret) {
        if (state == OPEN) {
            writeClose(code, reason);
        }
        if (state != DONE) {
            done(code, reason);
        }
        return ret;
    }

    /** The handshake is over (or failed): tell the handler, write what is queued, end the connection. */
    private void done(int code, String reason) {
        state = DONE;
        session.markClosed();
        message.release();
        inFrame = false;
        notifyClose(code, reason);
        c.closeAfterOutput();
    }

    private void notifyClose(int code, String reason) {
        if (closeNotified) {
            return;
        }
        closeNotified = true;
        try {
            handler.onClose(session, code, reason);
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.WARNING, "WebSocket handler " + handler.getClass().getName() + ".onClose threw", t);
        }
    }

    // ---------------------------------------------------------------- output (loop thread, this connection's turn or task)

    /** Writes a close frame with {@code code} (0: none) and {@code reason}. */
    private void writeClose(int code, String reason) {
        if (code == 0) {
            FrameOutput.frame(c, FrameWriter.FIN | FrameHeader.OP_CLOSE, new byte[0], 0, 0, mask);
            return;
        }
        byte[] r = reason.getBytes(StandardCharsets.UTF_8);
        byte[] p = new byte[2 + r.length];
        p[0] = (byte) (code >>> 8);
        p[1] = (byte) code;
        System.arraycopy(r, 0, p, 2, r.length);
        FrameOutput.frame(c, FrameWriter.FIN | FrameHeader.OP_CLOSE, p, 0, p.length, mask);
    }

    /** Starts the close handshake (§7.1.2): our close frame, then the peer's within closeTimeout. */
    void startClose(int code, String reason) {
        if (state != OPEN) {
            return;
        }
        writeClose(code, reason);
        state = CLOSE_SENT;
        session.markClosed();
    }

    /**
     * Sends a whole message or a fragment: {@code first} is byte 0 of the header (FIN, opcode). A whole
     * message ({@code compressible}) is compressed when permessage-deflate is on and it is long enough.
     * Returns false when the session no longer sends.
     */
    boolean send(int first, ByteBuffer src, int from, int length, boolean compressible) {
        if (state != OPEN) {
            return false;
        }
        if (compressible && deflater != null && length >= opts.compressionThreshold()) {
            deflater.compress(src.slice(from, length));
            FrameOutput.frame(c, first | FrameWriter.RSV1, deflater.output(), 0, deflater.length(), mask);
            deflater.releaseOutput();
        } else {
            FrameOutput.frame(c, first, src, from, length, mask);
        }
        return true;
    }

    boolean sendRaw(byte[] frame) {
        if (state != OPEN) {
            return false;
        }
        if (mask == null) {
            FrameOutput.raw(c, frame);
        } else {
            // A prepared frame is a server's (unmasked): a client sends its payload in a masked frame of its own.
            int len7 = frame[1] & 0x7F;
            int h = len7 == 126 ? 4 : len7 == 127 ? 10 : 2;
            FrameOutput.frame(c, frame[0] & 0xFF, frame, h, frame.length - h, mask);
        }
        return true;
    }

    boolean ping(byte[] data) {
        if (state != OPEN) {
            return false;
        }
        FrameOutput.frame(c, FrameWriter.FIN | FrameHeader.OP_PING, data, 0, data.length, mask);
        return true;
    }

    /** After a task wrote into the batch outside the connection's own turn: write it out, re-time. */
    void flushFromTask() {
        if (!c.isClosed()) {
            c.flush();
            c.updateTimer();
        }
    }

    Connection connection() {
        return c;
    }

    /**
     * Whether input waits for the off-loop callbacks to catch up ({@link OffLoopCallbacks#stall}):
     * the connection holds it and stops reading, and does not half-close meanwhile.
     */
    @Override
    public boolean producing() {
        return offLoop != null && state != DONE && offLoop.stalled();
    }

    /** Loop: the off-loop callbacks caught up; the held input is offered again. */
    void resumeAfterCallbacks() {
        if (!c.isClosed()) {
            c.resumeInput();
        }
    }

    /** Loop: an off-loop callback threw ({@link OffLoopCallbacks} logged it): close with 1011. */
    void offLoopCallbackFailed() {
        if (c.isClosed()) {
            return;
        }
        if (state == OPEN) {
            writeClose(CloseCodes.INTERNAL_ERROR, "");
        }
        if (state != DONE) {
            done(CloseCodes.INTERNAL_ERROR, "");
        }
        flushFromTask();
    }

    // ---------------------------------------------------------------- the rest of Protocol

    @Override
    public void onInputOverflow(Connection c) {
        fail(CloseCodes.TOO_BIG, "input too large", 0); // never more than a control frame is held
    }

    @Override
    public void onEndOfInput(Connection c) {
        if (producing() && c.heldInputLength() > 0) {
            // Frames wait behind the off-loop callbacks: they are read once those catch up
            // (Connection.resumeInput), then the connection closes; a close frame among them still counts.
            c.readInterest(false);
            return;
        }
        if (state != DONE) {
            state = DONE;
            session.markClosed();
            notifyClose(CloseCodes.ABNORMAL, ""); // §7.1.5: closed without a close frame
        }
        c.closeOnceWritten();
    }

    @Override
    public int timerPhase() {
        if (state == CLOSE_SENT) {
            return T_CLOSE;
        }
        if (state == DONE) {
            return 0; // the connection's own DRAIN phase bounds it
        }
        if (opts.pingIntervalMillis() > 0) {
            return awaitingPong ? T_PONG : T_PING;
        }
        return T_IDLE;
    }

    @Override
    public long timeoutMillis(int phase) {
        switch (phase) {
            case T_CLOSE:
                return opts.closeTimeoutMillis();
            case T_PING:
            case T_PONG:
                return opts.pingIntervalMillis();
            default:
                return opts.idleTimeoutMillis();
        }
    }

    @Override
    public boolean progressRestarts(int phase) {
        return phase != T_CLOSE;
    }

    @Override
    public void onTimeout(Connection c, int phase) {
        inTurn = true;
        try {
            switch (phase) {
                case T_CLOSE:
                    c.close(); // the peer never answered our close frame
                    return;
                case T_PING:
                    awaitingPong = true;
                    ping(new byte[0]);
                    break;
                case T_PONG:
                    startClose(CloseCodes.GOING_AWAY, "no pong");
                    break;
                default:
                    c.context().metrics().timedOut(dev.peregrine.loop.LoopMetrics.TIMEOUT_IDLE);
                    startClose(CloseCodes.GOING_AWAY, "idle");
            }
        } finally {
            inTurn = false;
        }
        c.flush();
        c.updateTimer();
    }

    @Override
    public void onShutdown(Connection c) {
        inTurn = true;
        try {
            startClose(CloseCodes.GOING_AWAY, mask == null ? "server stopping" : "client closing");
        } finally {
            inTurn = false;
        }
        if (state == OPEN || state == DONE) {
            c.closeAfterOutput();
        }
        c.flush();
        c.updateTimer();
    }

    @Override
    public void onClosed(Connection c) {
        state = DONE;
        session.markClosed();
        message.end();
        if (deflater != null) {
            deflater.end();
        }
        notifyClose(CloseCodes.ABNORMAL, "");
    }
}
