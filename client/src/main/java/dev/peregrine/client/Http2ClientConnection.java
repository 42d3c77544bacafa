package dev.peregrine.client;

import dev.peregrine.h2.frame.FrameParser;
import dev.peregrine.h2.frame.FrameWriter;
import dev.peregrine.h2.hpack.HpackDecoder;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.Protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;

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
 * <b>Flow control</b> (§5.2, §6.9): we advertise a stream window of {@link #STREAM_WINDOW} and raise
 * the connection's to {@link #CONNECTION_WINDOW}, and give back what each took once half is used: a
 * body is taken into memory as it arrives, so the window follows the caller's consumption. Request
 * bodies go out only within the server's connection and stream windows, in frames of at most its
 * SETTINGS_MAX_FRAME_SIZE; what does not fit waits for its WINDOW_UPDATE, so a server that stops
 * reading holds at most a window of ours. <b>Timers</b>: IDLE (no stream: {@code maxIdle}, then
 * GOAWAY and close), ACTIVE (streams open: {@code readTimeout}, restarted by any frame), ALPN (TLS,
 * before the first input: {@code connectTimeout}).
 *
 * <p>Output goes into the loop's batch and is written before the event ends ({@link Connection#flush}).
 * Thread: the session's loop thread.
 */
final class Http2ClientConnection implements Protocol {
    static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    static final int STREAM_WINDOW = 1 << 20;
    static final int CONNECTION_WINDOW = 8 << 20;
    /** Streams assumed allowed until the server's SETTINGS says (§6.5.2 leaves the initial value unlimited). */
    private static final int INITIAL_MAX_STREAMS = 100;
    private static final int HEADER_TABLE_SIZE = 4096;

    private static final int T_IDLE = 1;
    private static final int T_ACTIVE = 2;
    private static final int T_ALPN = 3;

    private final Http2Session session;
    private final HttpClient client;
    private final boolean tls;
    private final FrameParser parser = new FrameParser();
    private final HpackDecoder decoder;
    private final H2Fields fields = new H2Fields();
    private final ArrayDeque<H2Stream> free = new ArrayDeque<>();
    Connection c;
    private boolean ready;
    boolean draining;
    private boolean dead;
    /** ALPN chose HTTP/1.1: the session moved the host there; this connection only closes. */
    private boolean fellBack;
    /** Whether the first input was looked at (an HTTP/1.1 answer to an h2c preface falls back). */
    private boolean framesSeen;
    private static final byte[] HTTP1 = "HTTP/1.".getBytes(StandardCharsets.US_ASCII);

    private H2Stream[] streams = new H2Stream[8];
    private int open;
    private int nextStreamId = 1;
    int maxStreams = INITIAL_MAX_STREAMS;
    private int peerInitialWindow = DEFAULT_WINDOW;
    private int peerMaxFrameSize = DEFAULT_MAX_FRAME_SIZE;
    private long sendWindow = DEFAULT_WINDOW;
    private int recvUnacked;

    /** The field block being assembled (HEADERS, CONTINUATION...): its stream, or 0. */
    private int blockStream;
    private boolean blockEndStream;
    private ByteBuffer held;
    private int heldLength;
    private ByteBuffer decoded = ByteBuffer.allocate(0);

    Http2ClientConnection(Http2Session session, boolean tls) {
        this.session = session;
        this.client = session.client();
        this.tls = tls;
        this.decoder = new HpackDecoder(HEADER_TABLE_SIZE, client.maxHeadSize);
    }

    /** The connection is there (TCP, or TCP and the TLS layer): the preface goes first (§3.4). */
    void connected() {
        c.append(PREFACE, 0, PREFACE.length);
        FrameWriter.settings(c, SETTINGS_ENABLE_PUSH, 0, SETTINGS_INITIAL_WINDOW_SIZE, STREAM_WINDOW,
                SETTINGS_MAX_HEADER_LIST_SIZE, client.maxHeadSize);
        FrameWriter.windowUpdate(c, 0, CONNECTION_WINDOW - DEFAULT_WINDOW);
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
        return ready && !draining && !dead && c != null && c.isOpen() && open + more < maxStreams
                && nextStreamId + 2 * more < Integer.MAX_VALUE - 2;
    }

    int openStreams() {
        return open;
    }

    /** Whether the connection takes no new stream (GOAWAY, an error, its stream ids used up). */
    boolean draining() {
        return draining || dead;
    }

    /** Writes {@code call}'s HEADERS and what of its body the windows allow into the batch (the caller flushes). */
    void start(Call call) {
        H2Stream s = free.isEmpty() ? new H2Stream() : free.pollFirst();
        int id = nextStreamId;
        nextStreamId += 2;
        s.start(id, call, peerInitialWindow);
        call.attempts++;
        add(s);
        if (nextStreamId >= Integer.MAX_VALUE - 2) { // ids run out (§5.1.1): the session's next drain lets go of it
            draining = true;
        }
        byte[] block = call.request.h2Block();
        boolean noBody = s.body == null || s.body.length == 0;
        FrameWriter.headers(c, id, noBody, block, block.length, peerMaxFrameSize);
        if (noBody) {
            s.localEnded = true;
        } else {
            sendBody(s);
        }
    }

    /** Sends DATA of {@code s}'s body while the windows allow. */
    private void sendBody(H2Stream s) {
        while (!s.localEnded) {
            int left = s.body.length - s.sent;
            int n = (int) Math.min(Math.min(left, peerMaxFrameSize), Math.min(sendWindow, s.sendWindow));
            if (n <= 0 && left > 0) {
                return; // the windows are shut: WINDOW_UPDATE resumes
            }
            boolean end = n == left;
            FrameWriter.data(c, s.id, end, s.body, s.sent, n);
            s.sent += n;
            sendWindow -= n;
            s.sendWindow -= n;
            s.localEnded = end;
        }
    }

    private void resumeBodies() {
        for (int i = 0; i < open && sendWindow > 0; i++) {
            H2Stream s = streams[i];
            if (s.blocked() && s.sendWindow > 0) {
                sendBody(s);
            }
        }
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
            // h2c by prior knowledge to a server that speaks only HTTP/1.1: it answers our preface as a
            // request (RFC 9113 §3.3 leaves this to the client). None of our streams was taken: the host
            // goes on over HTTP/1.1, as when ALPN chooses it.
            int n = Math.min(end - pos, HTTP1.length);
            boolean http1 = true;
            for (int i = 0; i < n && http1; i++) {
                http1 = buf.get(pos + i) == HTTP1[i];
            }
            if (http1 && n < HTTP1.length) {
                return pos;
            }
            framesSeen = true;
            if (http1) {
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
        while (open > 0) { // h2c streams the server never took (it read our preface as an HTTP/1.1 request)
            H2Stream s = streams[0];
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
        if (blockStream != 0 && type != CONTINUATION) {
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
        recvUnacked += n;
        if (recvUnacked >= CONNECTION_WINDOW / 2) {
            FrameWriter.windowUpdate(c, 0, recvUnacked);
            recvUnacked = 0;
        }
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
        s.recvUnacked += n;
        if (s.recvUnacked >= STREAM_WINDOW / 2) {
            FrameWriter.windowUpdate(c, s.id, s.recvUnacked);
            s.recvUnacked = 0;
        }
    }

    private void headers(ByteBuffer b) {
        blockStream = parser.streamId();
        blockEndStream = parser.flag(FLAG_END_STREAM);
        heldLength = 0;
        if (parser.flag(FLAG_END_HEADERS)) {
            block(b, parser.dataStart(), parser.dataEnd());
        } else {
            hold(b);
        }
    }

    private void continuation(ByteBuffer b) {
        if (blockStream == 0 || parser.streamId() != blockStream) {
            connectionError(PROTOCOL_ERROR, "CONTINUATION without its HEADERS"); // §6.10
            return;
        }
        hold(b);
        if (!dead && parser.flag(FLAG_END_HEADERS)) {
            block(held, 0, heldLength);
        }
    }

    /** Copies a fragment of a block that spans frames; a block past 4 times maxHeadSize ends the connection. */
    private void hold(ByteBuffer b) {
        int n = parser.dataEnd() - parser.dataStart();
        if (heldLength + n > 4 * client.maxHeadSize) {
            connectionError(ENHANCE_YOUR_CALM, "field block larger than " + 4 * client.maxHeadSize + " bytes");
            return;
        }
        if (held == null || held.capacity() < heldLength + n) {
            ByteBuffer bigger = ByteBuffer.allocate(Math.max(heldLength + n, 2 * (held == null ? 1024 : held.capacity())));
            if (held != null) {
                bigger.put(0, held, 0, heldLength);
            }
            held = bigger;
        }
        held.put(heldLength, b, parser.dataStart(), n);
        heldLength += n;
    }

    /** A whole field block: decoded always (the table stays in step, §4.3), then given to its stream. */
    private void block(ByteBuffer src, int from, int to) {
        int id = blockStream;
        boolean endStream = blockEndStream;
        blockStream = 0;
        H2Stream s = find(id);
        fields.begin(s != null && s.status != 0);
        int bound = decoder.destinationBound(to - from, 0);
        if (decoded.capacity() < bound) {
            decoded = ByteBuffer.allocate(bound);
        }
        int r = decoder.decode(src, from, to, decoded, 0, bound, fields);
        if (r < 0) {
            connectionError(COMPRESSION_ERROR, "bad HPACK block");
            return;
        }
        if (s == null) {
            unknownStream(id);
            return;
        }
        s.responded = true;
        if (decoder.tooLarge()) {
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
        for (int at = parser.payloadStart(); at < parser.frameEnd(); at += 6) {
            int id = (b.get(at) & 0xff) << 8 | (b.get(at + 1) & 0xff);
            int value = FrameParser.int32(b, at + 2);
            switch (id) {
                case SETTINGS_ENABLE_PUSH:
                    if (value != 0) {
                        connectionError(PROTOCOL_ERROR, "a server set ENABLE_PUSH"); // §6.5.2
                        return;
                    }
                    break;
                case SETTINGS_MAX_CONCURRENT_STREAMS:
                    maxStreams = value < 0 ? Integer.MAX_VALUE : value;
                    break;
                case SETTINGS_INITIAL_WINDOW_SIZE:
                    if (value < 0) {
                        connectionError(FLOW_CONTROL_ERROR, "INITIAL_WINDOW_SIZE above 2^31-1");
                        return;
                    }
                    long delta = (long) value - peerInitialWindow;
                    for (int i = 0; i < open; i++) {
                        streams[i].sendWindow += delta;
                        if (streams[i].sendWindow > MAX_WINDOW) {
                            connectionError(FLOW_CONTROL_ERROR, "a stream window above 2^31-1"); // §6.9.2
                            return;
                        }
                    }
                    peerInitialWindow = value;
                    break;
                case SETTINGS_MAX_FRAME_SIZE:
                    if (value < DEFAULT_MAX_FRAME_SIZE || value > MAX_MAX_FRAME_SIZE) {
                        connectionError(PROTOCOL_ERROR, "MAX_FRAME_SIZE out of range");
                        return;
                    }
                    peerMaxFrameSize = value;
                    break;
                default:
                    break; // HEADER_TABLE_SIZE: our blocks use no dynamic table; unknown ones (§6.5.2)
            }
        }
        FrameWriter.settingsAck(c);
        resumeBodies();
    }

    private void windowUpdate(int id, int increment) {
        if (id == 0) {
            sendWindow += increment;
            if (sendWindow > MAX_WINDOW) {
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
        if (s.blocked() && sendWindow > 0) {
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
        for (int i = open - 1; i >= 0; i--) {
            H2Stream s = streams[i];
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
        if (c != null && open > 0) {
            flushOwn();
        }
        for (int i = open - 1; i >= 0; i--) {
            H2Stream s = streams[i];
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
        for (int i = 0; i < open; i++) {
            if (streams[i].call == call) {
                FrameWriter.rstStream(c, streams[i].id, CANCEL);
                release(streams[i]);
                c.flush();
                c.updateTimer();
                return true;
            }
        }
        return false;
    }

    private void closeIfDone() {
        if (draining && open == 0 && c.isOpen()) {
            c.closeAfterOutput();
        }
    }

    // ---------------------------------------------------------------- streams

    private void add(H2Stream s) {
        if (open == streams.length) {
            streams = java.util.Arrays.copyOf(streams, open * 2);
        }
        streams[open++] = s;
    }

    private H2Stream find(int id) {
        for (int i = 0; i < open; i++) {
            if (streams[i].id == id) {
                return streams[i];
            }
        }
        return null;
    }

    private void release(H2Stream s) {
        for (int i = 0; i < open; i++) {
            if (streams[i] == s) {
                System.arraycopy(streams, i + 1, streams, i, open - i - 1);
                streams[--open] = null;
                break;
            }
        }
        s.clear();
        free.addFirst(s);
        if (open == 0 && draining) {
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
        return open == 0 ? T_IDLE : T_ACTIVE;
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
