package dev.peregrine.client;

import dev.peregrine.h2.frame.FrameParser;
import dev.peregrine.h2.frame.FrameWriter;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.Protocol;

import java.nio.ByteBuffer;

import static dev.peregrine.h2.frame.Frames.*;

/**
 * The HTTP/2 client (RFC 9113) as a {@link Protocol}: one connection of an {@link Http2Session},
 * carrying many streams ({@link H2Stream}) at once, with the project's frame codec and HPACK.
 * <pre>
 *   connected --&gt; preface, SETTINGS, WINDOW_UPDATE(0) written
 *     h2c (prior knowledge) --&gt; READY at once (requests may follow the preface, §3.4)
 *       (a first input of "HTTP/1." is a server answering the preface as an HTTP/1.1 request: the
 *        session falls back to HTTP/1.1 for the host; it took none of our streams)
 *     TLS --&gt; AWAITING_ALPN until the first input: ALPN said h2 --&gt; READY
 *                                                  else (http/1.1, none) --&gt; the session falls back to
 *                                                  HTTP/1.1 for the host; none of our streams was sent
 *   READY: start(call) writes HEADERS (+ DATA within the windows) while fewer streams are open than
 *          the server's SETTINGS_MAX_CONCURRENT_STREAMS (the session queues the rest)
 *     HEADERS/CONTINUATION --&gt; HPACK-decoded (the table kept in step even for a stream we reset),
 *                             checked ({@link H2Fields}); 1xx skipped; the final head kept; trailers dropped
 *     DATA --&gt; the stream's body (up to maxResponseBodySize); windows given back at half use
 *     END_STREAM --&gt; the call is answered, the stream reused
 *     RST_STREAM --&gt; that call alone: REFUSED_STREAM retried (§8.7), HTTP_1_1_REQUIRED sent again over
 *                    HTTP/1.1, others fail with phase RESET
 *     SETTINGS --&gt; applied, ACKed;  PING --&gt; ACKed;  WINDOW_UPDATE --&gt; blocked request bodies go on
 *     GOAWAY(last) --&gt; DRAINING: no new stream here; streams above {@code last} were not processed
 *                     and are retried on a new connection if idempotent, else fail (phase CLOSED)
 *     PUSH_PROMISE (we send ENABLE_PUSH 0), a bad frame, a bad block --&gt; GOAWAY, close (§5.4.1)
 *   DRAINING, no stream left --&gt; close.  Closed with streams open --&gt; as GOAWAY with last 0 for those
 *   that saw no response frame, else they fail (phase CLOSED)
 * </pre>
 * Flow control: {@link H2Windows}; the server's settings: {@link H2PeerSettings}; field blocks:
 * {@link H2BlockReader}. <b>Timers</b>: IDLE (no stream: {@code maxIdle}, then GOAWAY and close), ACTIVE
 * (streams open: {@code readTimeout}, restarted by any frame), ALPN (TLS, first input: {@code connectTimeout}).
 *
 * <p>Output goes into the loop's batch and is written before the event ends ({@link Connection#flush}).
 * Thread: the session's loop thread.
 */
final class Http2ClientConnection implements Protocol {
    static final int STREAM_WINDOW = 1 << 20;
    static final int CONNECTION_WINDOW = 8 << 20;

    private static final int T_IDLE = 1;
    private static final int T_ACTIVE = 2;
    private static final int T_ALPN = 3;

    private final Http2Session session;
    private final HttpClient client;
    private final boolean tls;
    private final FrameParser parser = new FrameParser();
    private final H2BlockReader block;
    private final H2PeerSettings peer = new H2PeerSettings();
    Connection c;
    private boolean ready;
    boolean draining;
    private boolean dead;
    /** ALPN chose HTTP/1.1: the session moved the host there; this connection only closes. */
    private boolean fellBack;
    /** Whether the first input was looked at (an HTTP/1.1 answer to an h2c preface falls back). */
    private boolean framesSeen;

    private final H2StreamTable streams = new H2StreamTable();
    private int nextStreamId = 1;
    private final H2Windows windows = new H2Windows();

    Http2ClientConnection(Http2Session session, boolean tls) {
        this.session = session;
        this.client = session.client();
        this.tls = tls;
        this.block = new H2BlockReader(client.maxHeadSize);
    }

    /** The connection is there (TCP, or TCP and the TLS layer): the preface goes first (§3.4). */
    void connected() {
        H2Preface.write(c, STREAM_WINDOW, CONNECTION_WINDOW, client.maxHeadSize);
        ready = !tls;
        c.flush();
        c.updateTimer();
    }

    @Override
    public void onOpen(Connection c) {
        this.c = c;
    }

    /** Whether the session may start one more stream here now. */
    boolean canStart() {
        return canStart(0);
    }

    /** Whether the session may start one more stream here after {@code more} it is about to start. */
    boolean canStart(int more) {
        return ready && !draining && !dead && c != null && c.isOpen() && streams.open + more < peer.maxStreams
                && nextStreamId + 2 * more < Integer.MAX_VALUE - 2;
    }

    int openStreams() {
        return streams.open;
    }

    /** Whether the connection takes no new stream (GOAWAY, an error, its stream ids used up). */
    boolean draining() {
        return draining || dead;
    }

    /** Writes {@code call}'s HEADERS and what of its body the windows allow into the batch (the caller flushes). */
    void start(Call call) {
        H2Stream s = streams.take();
        int id = nextStreamId;
        nextStreamId += 2;
        s.start(id, call, peer.initialWindow);
        call.attempts++;
        add(s);
        if (nextStreamId >= Integer.MAX_VALUE - 2) { // ids run out (§5.1.1): the session's next drain lets go of it
            draining = true;
        }
        byte[] block = call.request.h2Block();
        boolean noBody = s.body == null || s.body.length == 0;
        FrameWriter.headers(c, id, noBody, block, block.length, peer.maxFrameSize);
        if (noBody) {
            s.localEnded = true;
        } else {
            sendBody(s);
        }
    }

    private void sendBody(H2Stream s) {
        windows.send(c, s, peer.maxFrameSize);
    }

    private void resumeBodies() {
        windows.resume(c, streams, peer.maxFrameSize);
    }

    // ---------------------------------------------------------------- input

    @Override
    public int onInput(Connection c, ByteBuffer buf, int start, int end) {
        if (!ready && !dead) {
            if (!"h2".equals(c.endpoint().applicationProtocol())) {
                fallBack(); // none of our streams went out: HTTP/1.1 takes them
                return end;
            }
            ready = true; // the streams start once this input's SETTINGS are read (session.fill below)
            session.ready(this);
        }
        int pos = start;
        if (!framesSeen && !tls) {
            // An h2c preface answered in HTTP/1.1: none of our streams was taken, HTTP/1.1 takes them.
            int http1 = H2Preface.http1Answer(buf, pos, end);
            if (http1 == H2Preface.UNSURE) {
                return pos;
            }
            framesSeen = true;
            if (http1 == 1) {
                fallBack();
                return end;
            }
        }
        while (!dead && c.isOpen()) {
            int r = parser.parse(buf, pos, end);
            if (r == FrameParser.NEED_MORE) {
                break;
            }
            if (r == FrameParser.ERROR) {
                if (parser.errorStream() == 0) {
                    connectionError(parser.errorCode(), "bad frame (" + errorName(parser.errorCode()) + ")");
                    return end;
                }
                streamError(parser.errorStream(), parser.errorCode(), ClientException.Phase.RESPONSE, "bad frame");
                pos = parser.frameEnd();
                continue;
            }
            frame(buf);
            pos = r;
        }
        if (!dead && c.isOpen()) {
            session.fill(this); // streams that ended made room for queued calls, in the same batch
        }
        return dead ? end : pos;
    }

    /** The server does not speak HTTP/2 here: every call of this connection goes to the host's HTTP/1.1 side. */
    private void fallBack() {
        dead = true;
        fellBack = true;
        session.alpnRefused(this);
        while (streams.open > 0) { // h2c streams the server never took (it read our preface as an HTTP/1.1 request)
            H2Stream s = streams.all[0];
            Call call = s.call;
            release(s);
            call.attempts--; // not an attempt: the server never saw it as a request
            if (!session.overHttp1(call)) {
                session.failed(call, new ClientException(ClientException.Phase.SHUTDOWN, session.host(), "client closed"));
            }
        }
        c.close();
    }

    @Override
    public int expectedInput() {
        return parser.needed();
    }

    private void frame(ByteBuffer b) {
        int type = parser.type();
        if (block.stream != 0 && type != CONTINUATION) {
            connectionError(PROTOCOL_ERROR, "a frame inside a field block"); // §6.10
            return;
        }
        switch (type) {
            case DATA:
                data(b);
                break;
            case HEADERS:
                headers(b);
                break;
            case CONTINUATION:
                continuation(b);
                break;
            case RST_STREAM:
                reset(parser.streamId(), parser.errorCodeField(b));
                break;
            case SETTINGS:
                settings(b);
                break;
            case PING:
                if (!parser.flag(FLAG_ACK)) {
                    FrameWriter.ping(c, true, (long) FrameParser.int32(b, parser.payloadStart()) << 32
                            | (FrameParser.int32(b, parser.payloadStart() + 4) & 0xffff_ffffL));
                }
                break;
            case GOAWAY:
                goAway(parser.lastStreamId(b), parser.errorCodeField(b));
                break;
            case WINDOW_UPDATE:
                windowUpdate(parser.streamId(), parser.windowIncrement(b));
                break;
            case PUSH_PROMISE:
                connectionError(PROTOCOL_ERROR, "PUSH_PROMISE though we sent ENABLE_PUSH 0"); // §8.4
                break;
            default:
                break; // PRIORITY (deprecated, §5.3.2), unknown types (§5.5)
        }
    }

    private void data(ByteBuffer b) {
        int n = parser.length();
        windows.received(c, n);
        H2Stream s = find(parser.streamId());
        if (s == null) {
            unknownStream(parser.streamId());
            return;
        }
        if (s.status == 0) {
            streamError(s.id, PROTOCOL_ERROR, ClientException.Phase.RESPONSE, "DATA before the response's head");
            return;
        }
        s.responded = true;
        if (!s.append(b, parser.dataStart(), parser.dataEnd(), client.maxResponseBodySize)) {
            streamError(s.id, CANCEL, ClientException.Phase.TOO_LARGE,
                    "response larger than " + client.maxResponseBodySize + " bytes");
            return;
        }
        if (parser.flag(FLAG_END_STREAM)) {
            finish(s);
            return;
        }
        windows.received(c, s, n);
    }

    private void headers(ByteBuffer b) {
        block.begin(parser.streamId(), parser.flag(FLAG_END_STREAM));
        if (parser.flag(FLAG_END_HEADERS)) {
            block(b, parser.dataStart(), parser.dataEnd());
        } else {
            hold(b);
        }
    }

    private void continuation(ByteBuffer b) {
        if (block.stream == 0 || parser.streamId() != block.stream) {
            connectionError(PROTOCOL_ERROR, "CONTINUATION without its HEADERS"); // §6.10
            return;
        }
        hold(b);
        if (!dead && parser.flag(FLAG_END_HEADERS)) {
            block(null, 0, 0);
        }
    }

    private void hold(ByteBuffer b) {
        if (!block.hold(parser, b)) {
            connectionError(ENHANCE_YOUR_CALM, "field block larger than " + block.maxBlock() + " bytes");
        }
    }

    /**
     * A whole field block ({@code src} null: the one held across frames): decoded always (the table
     * stays in step, §4.3), then given to its stream.
     */
    private void block(ByteBuffer src, int from, int to) {
        int id = block.stream;
        boolean endStream = block.endStream;
        H2Stream s = find(id);
        boolean trailers = s != null && s.status != 0;
        if (!(src == null ? block.decodeHeld(trailers) : block.decode(src, from, to, trailers))) {
            connectionError(COMPRESSION_ERROR, "bad HPACK block");
            return;
        }
        if (s == null) {
            unknownStream(id);
            return;
        }
        s.responded = true;
        H2Fields fields = block.fields;
        if (block.tooLarge()) {
            streamError(id, CANCEL, ClientException.Phase.TOO_LARGE, "response head larger than " + client.maxHeadSize + " bytes");
            return;
        }
        if (s.status != 0) { // trailers: checked, dropped; they must end the stream (§8.1)
            if (!endStream || !fields.complete()) {
                streamError(id, PROTOCOL_ERROR, ClientException.Phase.RESPONSE, "malformed trailers");
                return;
            }
            finish(s);
            return;
        }
        if (!fields.complete()) {
            streamError(id, PROTOCOL_ERROR, ClientException.Phase.RESPONSE, "malformed response head: " + fields.malformed);
            return;
        }
        if (fields.status < 200) { // interim (1xx): skipped; it cannot end the stream (§8.1)
            if (endStream) {
                streamError(id, PROTOCOL_ERROR, ClientException.Phase.RESPONSE, "an interim response ended the stream");
            }
            return;
        }
        s.head(fields);
        if (endStream) {
            finish(s);
        }
    }

    /** A frame for a stream not open here: one we closed or reset (ignored), else a connection error (§5.1). */
    private void unknownStream(int id) {
        if ((id & 1) == 0 || id >= nextStreamId) {
            connectionError(PROTOCOL_ERROR, "frame on stream " + id + ", which we never opened");
        }
    }

    private void settings(ByteBuffer b) {
        if (parser.flag(FLAG_ACK)) {
            return;
        }
        int code = peer.apply(b, parser.payloadStart(), parser.frameEnd(), streams.all, streams.open);
        if (code != 0) {
            connectionError(code, peer.error);
            return;
        }
        FrameWriter.settingsAck(c);
        resumeBodies();
    }

    private void windowUpdate(int id, int increment) {
        if (id == 0) {
            windows.sendWindow += increment;
            if (windows.sendWindow > MAX_WINDOW) {
                connectionError(FLOW_CONTROL_ERROR, "connection window above 2^31-1"); // §6.9.1
                return;
            }
            resumeBodies();
            return;
        }
        H2Stream s = find(id);
        if (s == null) {
            return; // a stream we closed: WINDOW_UPDATE may still come (§6.9)
        }
        s.sendWindow += increment;
        if (s.sendWindow > MAX_WINDOW) {
            streamError(id, FLOW_CONTROL_ERROR, ClientException.Phase.RESPONSE, "stream window above 2^31-1");
            return;
        }
        if (s.blocked() && windows.sendWindow > 0) {
            sendBody(s);
        }
    }

    /** The server reset stream {@code id}: that call alone is answered (§6.4, §8.7). */
    private void reset(int id, int code) {
        H2Stream s = find(id);
        if (s == null) {
            unknownStream(id);
            return;
        }
        Call call = s.call;
        release(s);
        flushOwn();
        if (code == REFUSED_STREAM && session.retry(call, true)) {
            return; // §8.7: not processed, safe to send again
        }
        if (code == HTTP_1_1_REQUIRED && session.overHttp1(call)) {
            return;
        }
        session.failed(call, new ClientException(ClientException.Phase.RESET, session.host(),
                "the server reset the stream (" + errorName(code) + ")"));
    }

    private void goAway(int last, int code) {
        draining = true;
        session.draining(this);
        for (int i = streams.open - 1; i >= 0; i--) {
            H2Stream s = streams.all[i];
            if (s.id > last) { // not processed (§6.8): a new connection may take it
                Call call = s.call;
                release(s);
                flushOwn();
                if (!session.retry(call, false)) {
                    session.failed(call, new ClientException(ClientException.Phase.CLOSED, session.host(),
                            "GOAWAY (" + errorName(code) + ") before the server processed the request"));
                }
            }
        }
        closeIfDone();
    }

    /** The response of {@code s} is complete. */
    private void finish(H2Stream s) {
        if (s.contentLength >= 0 && s.contentLength != s.dataLength) {
            streamError(s.id, PROTOCOL_ERROR, ClientException.Phase.RESPONSE, "content-length " + s.contentLength
                    + " but " + s.dataLength + " bytes of DATA"); // §8.1.1
            return;
        }
        if (!s.localEnded) {
            FrameWriter.rstStream(c, s.id, NO_ERROR); // answered early: the rest of our body is not wanted (§8.1)
        }
        Call call = s.call;
        ClientResponse r = call.collect(s);
        release(s);
        flushOwn();
        session.answered(call, r);
    }

    private void streamError(int id, int code, ClientException.Phase phase, String why) {
        FrameWriter.rstStream(c, id, code);
        H2Stream s = find(id);
        if (s != null) {
            Call call = s.call;
            release(s);
            flushOwn();
            session.failed(call, new ClientException(phase, session.host(), why));
        }
    }

    private void connectionError(int code, String why) {
        if (dead) {
            return;
        }
        FrameWriter.goAway(c, 0, code); // we accept no stream of the server's: the last is 0
        dead = true;
        session.draining(this);
        flushOwn();
        failAll(ClientException.Phase.RESPONSE, "HTTP/2 connection error " + errorName(code) + ": " + why, false);
        c.closeAfterOutput();
    }

    /**
     * Writes what this connection put in the batch before anything answers a call: the answer's
     * callback may write another connection's request, and the loop's write buffer is one for all.
     */
    private void flushOwn() {
        if (c.isOpen() && c.out().position() > 0) {
            c.flush();
        }
    }

    /** Fails (or, when allowed and nothing was received, retries) every open stream. */
    private void failAll(ClientException.Phase phase, String why, boolean retry) {
        if (c != null && streams.open > 0) {
            flushOwn();
        }
        for (int i = streams.open - 1; i >= 0; i--) {
            H2Stream s = streams.all[i];
            Call call = s.call;
            boolean responded = s.responded;
            release(s);
            if (retry && !responded && session.retry(call, false)) {
                continue;
            }
            session.failed(call, new ClientException(phase, session.host(), why));
        }
    }

    /** The call's total timeout ran out while on this connection: its stream is cancelled. */
    boolean cancel(Call call) {
        for (int i = 0; i < streams.open; i++) {
            if (streams.all[i].call == call) {
                FrameWriter.rstStream(c, streams.all[i].id, CANCEL);
                release(streams.all[i]);
                c.flush();
                c.updateTimer();
                return true;
            }
        }
        return false;
    }

    private void closeIfDone() {
        if (draining && streams.open == 0 && c.isOpen()) {
            c.closeAfterOutput();
        }
    }

    private void add(H2Stream s) {
        streams.add(s);
    }

    private H2Stream find(int id) {
        return streams.find(id);
    }

    private void release(H2Stream s) {
        streams.remove(s);
        if (streams.open == 0 && draining) {
            closeIfDone();
        }
    }

    // ---------------------------------------------------------------- the connection's life

    @Override
    public void onInputOverflow(Connection c) {
        connectionError(FRAME_SIZE_ERROR, "frame larger than the input buffer");
    }

    @Override
    public void onEndOfInput(Connection c) {
        c.close();
    }

    @Override
    public int timerPhase() {
        if (!ready && !dead) {
            return T_ALPN;
        }
        return streams.open == 0 ? T_IDLE : T_ACTIVE;
    }

    @Override
    public long timeoutMillis(int phase) {
        return phase == T_IDLE ? client.maxIdleMillis : phase == T_ALPN ? client.connectTimeoutMillis : client.readTimeoutMillis;
    }

    @Override
    public void onTimeout(Connection c, int phase) {
        if (phase == T_ACTIVE) {
            failAll(ClientException.Phase.READ, "no HTTP/2 frame within the read timeout of " + client.readTimeoutMillis + " ms", false);
        } else if (phase == T_ALPN) {
            session.connectFailed(this, new ClientException(ClientException.Phase.CONNECT, session.host(),
                    "no answer to the HTTP/2 preface within " + client.connectTimeoutMillis + " ms"));
        }
        if (!dead) {
            dead = true;
            FrameWriter.goAway(c, 0, NO_ERROR);
            c.closeAfterOutput();
            c.flush(); // not inside an input event: nothing else writes the batch
        }
        session.draining(this);
    }

    @Override
    public void onShutdown(Connection c) {
        c.close();
    }

    @Override
    public void onClosed(Connection c) {
        dead = true;
        javax.net.ssl.SSLException tlsFailure = c.endpoint().tlsFailure();
        if (fellBack) {
            session.closed(this);
            return;
        }
        if (tlsFailure != null) {
            session.connectFailed(this, new ClientException(ClientException.Phase.TLS, session.host(),
                    "TLS failed: " + tlsFailure.getMessage(), tlsFailure));
        } else if (!ready) {
            session.connectFailed(this, new ClientException(ClientException.Phase.CONNECT, session.host(),
                    "connection closed before the HTTP/2 preface was answered"));
        }
        failAll(ClientException.Phase.CLOSED, "connection closed before the response was complete", true);
        session.closed(this);
    }
}
