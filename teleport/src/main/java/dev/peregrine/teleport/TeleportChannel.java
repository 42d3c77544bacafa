package dev.peregrine.teleport;

import dev.peregrine.client.ClientException;
import dev.peregrine.http1.ResponseReader;
import dev.peregrine.loop.ConnectCallback;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.FineTimeout;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.Timeout;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One teleport connection of a {@link TeleportClient}, kept up across reconnects, on one loop:
 * the client side of the protocol. Every method runs on that loop (calls from other threads arrive
 * through its {@link CallInbox}, one drain task per batch); every timer (deadlines, ping, reconnect
 * backoff) is a node on its wheel, but the batch delay, a fine deadline of the loop (kept to its
 * latency, not the wheel's 10 ms tick).
 * <pre>
 *   DOWN --connect--&gt; CONNECTING --connected: hello--&gt; HELLO --0x00 + server hello--&gt; OPEN
 *    ^                    | refused / failed / reason byte / bad hello: queued calls fail (CONNECT)  |
 *    +--- backoff (100 ms doubling to 5 s) on the wheel &lt;---------------------------------------------+
 *    ^                                                              closed, bad input
 *   OPEN --GOAWAY (id G): calls sent after G requeued, nothing more sent; the last call up to G
 *          answered: closed, and CONNECTING at once (no backoff), the queue kept--&gt; CONNECTING
 *   OPEN: calls queue; the batch leaves after maxBatchDelay (when 0: at the end of the inbox's drain, or,
 *         for calls made on the loop, a loop task), or at maxBatchFrames
 *         / maxBatchBytes: every queued call's REQUEST frame, one write. RESPONSE frames are matched by
 *         id ({@link ResponseReader} reads each payload as exactly one message). Idle for pingInterval:
 *         PING; no answer by the next: closed as dead.
 * </pre>
 * Bad input (an unknown frame, a RESPONSE for no call, a payload that is not one response, an
 * oversized frame) closes this connection only; its calls fail with phase RESPONSE (one DEBUG line).
 * A closed connection fails its calls in flight with phase CLOSED; calls beyond the in-flight cap
 * (the smaller of the client's and the server's) fail at once with phase POOL.
 */
final class TeleportChannel implements UntimedProtocol, ConnectCallback {
    private static final System.Logger LOG = System.getLogger("dev.peregrine.teleport");
    private static final long MIN_BACKOFF = 100;
    private static final long MAX_BACKOFF = 5_000;

    enum State { DOWN, CONNECTING, HELLO, OPEN, CLOSED }

    private final TeleportClient client;
    final LoopContext loop;
    private final InetSocketAddress address;
    private final ResponseReader reader;
    private State state = State.DOWN;
    private Connection c;
    private final ArrayDeque<TeleportCall> queued = new ArrayDeque<>();
    private final CallTable inFlight = new CallTable();
    /** Calls answered and free for the next send (taken by any thread, given back by this loop). */
    final CallPool calls;
    /** Calls queued or in flight, read by the client's pick from any thread (a hint only). */
    volatile int load;
    private int peerMaxFrame = Handshake.MIN_FRAME;
    private int cap;
    private long backoff = MIN_BACKOFF;
    private boolean readSinceTick;
    private boolean pingOutstanding;
    private boolean flushScheduled;
    private boolean goingAway;
    /** The compression the server writes (decoded here), or null for none. */
    private StreamCodec rd;
    /** The compression this client writes, or null for none. */
    private StreamCodec wr;
    /** Counters for tests and metrics (written by the loop, once per batch). */
    volatile long batches;
    volatile long framesSent;
    /** Calls from other threads, drained by one loop task per batch. */
    final CallInbox inbox;
    private static final AtomicIntegerFieldUpdater<TeleportChannel> LOAD = AtomicIntegerFieldUpdater.newUpdater(TeleportChannel.class, "load");

    private final FineTimeout batchTimer = new FineTimeout() {
        @Override
        protected void onTimeout() {
            flushBatch();
        }
    };
    private final Runnable batchTask = this::flushBatch;
    private final Timeout pingTimer = new WheelTask(this::ping);
    private final Timeout reconnectTimer = new WheelTask(this::connect);
    private final Timeout helloTimer = new WheelTask(() -> {
        if (state == State.HELLO) {
            drop(ClientException.Phase.CONNECT, "no teleport handshake answer within " + Handshake.TIMEOUT_MILLIS + " ms");
        }
    });

    TeleportChannel(TeleportClient client, LoopContext loop, InetSocketAddress address) {
        this.client = client;
        this.loop = loop;
        this.address = address;
        this.reader = new ResponseReader(client.maxHeadSize, client.maxBodySize);
        this.calls = new CallPool(this, client.maxInFlight);
        this.inbox = new CallInbox(this, client.maxInFlight);
    }

    String hostKey() {
        return address.getHostString() + ":" + address.getPort();
    }

    // ---------------------------------------------------------------- calls (loop thread)

    /** A call made on this loop (or handed over as its own task): queued, and its batch planned. */
    void send(TeleportCall call) {
        if (queue(call) && state == State.OPEN) {
            scheduleBatch();
        }
    }

    /** Queues {@code call} and starts its deadline; false when it failed at once (closed, down, cap, too large). */
    boolean queue(TeleportCall call) {
        if (state == State.CLOSED) {
            call.fail(ClientException.Phase.SHUTDOWN, "teleport client closed");
            return false;
        }
        if (state == State.DOWN) {
            call.fail(ClientException.Phase.CONNECT, "teleport connection to " + hostKey() + " is down (reconnecting)");
            return false;
        }
        if (queued.size() + inFlight.size() >= limit()) {
            call.fail(ClientException.Phase.POOL, "teleport: " + limit() + " requests already in flight to " + hostKey());
            return false;
        }
        if (call.payloadLength() > peerMaxFrame && state == State.OPEN) {
            call.fail(ClientException.Phase.TOO_LARGE, "request above the server's frame limit (" + peerMaxFrame + " bytes)");
            return false;
        }
        queued.add(call);
        publishLoad();
        loop.timers().schedule(call, client.timeoutMillis, loop.nowMillis());
        return true;
    }

    /** The inbox's drain queued calls from other threads: with no batch delay they leave now, one batch. */
    void drained() {
        if (state != State.OPEN || queued.isEmpty()) {
            return;
        }
        if (client.maxBatchDelayMillis == 0) {
            flushBatch();
        } else {
            scheduleBatch();
        }
    }

    /** {@link #load} for the client's pick: a release store, no fence per call (a hint, read racily anyway). */
    private void publishLoad() {
        LOAD.lazySet(this, queued.size() + inFlight.size());
    }

    private int limit() {
        return state == State.OPEN ? cap : client.maxInFlight;
    }

    private void scheduleBatch() {
        if (flushScheduled) {
            return;
        }
        flushScheduled = true;
        if (client.maxBatchDelayMillis > 0) {
            loop.scheduleFine(batchTimer, client.maxBatchDelayMillis); // to the loop's latency, not the wheel's tick
        } else {
            loop.eventLoop().execute(batchTask); // behind the calls queued with this one: they share the write
        }
    }

    /**
     * Writes every queued call's frame; one write per batch (more at maxBatchFrames / maxBatchBytes).
     * A write may fail and close the connection mid-batch: onClosed then fails every call (queued and
     * in flight) and plans the reconnect, and the flush below clears what was put in the loop's buffer.
     */
    private void flushBatch() {
        flushScheduled = false;
        Connection conn = c;
        if (state != State.OPEN || conn == null || !conn.isOpen() || goingAway) {
            return; // after GOAWAY calls wait for the next connection
        }
        int frames = 0;
        long bytes = 0;
        boolean plain = wr == null;
        while (!queued.isEmpty() && conn.isOpen()) {
            TeleportCall call = queued.poll();
            if (call.done) {
                calls.recycle(call); // timed out while queued: never sent, and nothing holds it now
                continue;
            }
            call.id = inFlight.freeId();
            inFlight.put(call);
            frames++;
            int before = plain ? conn.out().position() : 0;
            int n = call.writeRequest(frameOut());
            // Plain frames go straight into the loop's write buffer, which is written whenever it fills
            // (mid-frame): the batch's bytes are then what the buffer holds since, so the byte cap does
            // not cut a few bytes into a write of their own right after a full one.
            bytes = plain && conn.out().position() < before + n ? conn.out().position() : bytes + n;
            if (frames >= client.maxBatchFrames || bytes >= client.maxBatchBytes) {
                batchWritten(frames);
                flushOut(); // one compress per batch
                conn.flush();
                frames = 0;
                bytes = 0;
            }
        }
        if (frames > 0) {
            batchWritten(frames);
            flushOut();
        }
        conn.flush(); // on a connection closed meanwhile this clears the loop's buffer
    }

    /** Counts a batch of {@code frames} (the volatile counters move once per batch, not per frame). */
    private void batchWritten(int frames) {
        batches++;
        framesSent += frames;
    }

    /** A call's deadline passed: it fails (READ) and, if written, the server is told to drop it. */
    void timedOut(TeleportCall call) {
        call.fail(ClientException.Phase.READ, "no teleport response within " + client.timeoutMillis + " ms");
        if (call.id != 0 && state == State.OPEN && inFlight.get(call.id) == call) {
            call.cancelled = true;
            control(call.id, Frame.CANCEL, false);
            flushOut();
            c.flush();
        }
    }

    // ---------------------------------------------------------------- connecting

    void connect() {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CONNECTING;
        loop.eventLoop().connect(address, client.tls, this, client.connectTimeoutMillis, this);
    }

    @Override
    public void connected(Connection connection) {
        if (state == State.CLOSED) {
            connection.close();
            return;
        }
        this.c = connection;
        state = State.HELLO;
        ByteBuffer out = c.out();
        Handshake.write(out, new Handshake.Hello(Handshake.VERSION, client.compression, client.maxFrame, client.maxInFlight));
        c.flush();
        loop.timers().schedule(helloTimer, Handshake.TIMEOUT_MILLIS, loop.nowMillis());
    }

    @Override
    public void failed(IOException cause) {
        if (state == State.CLOSED) {
            return;
        }
        LOG.log(System.Logger.Level.DEBUG, () -> "teleport connect to " + hostKey() + " failed: " + cause);
        failAll(ClientException.Phase.CONNECT, "cannot connect to " + hostKey() + ": " + cause.getMessage());
        down();
    }

    /** Waits out the backoff, then connects again. */
    private void down() {
        if (state == State.CLOSED) {
            return;
        }
        state = State.DOWN;
        loop.timers().schedule(reconnectTimer, backoff, loop.nowMillis());
        backoff = Math.min(MAX_BACKOFF, backoff * 2);
    }

    // ---------------------------------------------------------------- Protocol

    @Override
    public int onInput(Connection c, ByteBuffer buf, int start, int end) {
        int pos = start;
        readSinceTick = true;
        if (state == State.HELLO) {
            int status = buf.get(pos) & 0xFF;
            if (status != Handshake.ACCEPTED) {
                drop(ClientException.Phase.CONNECT, "teleport server refused: " + Handshake.reason(status));
                return end;
            }
            int r = Handshake.check(buf, pos + 1, end, TeleportCompression.values());
            if (r == Handshake.NEED_MORE) {
                return start;
            }
            if (r != Handshake.ACCEPTED) {
                drop(ClientException.Phase.CONNECT, "bad teleport server hello: " + Handshake.reason(r));
                return end;
            }
            Handshake.Hello h = Handshake.read(buf, pos + 1);
            peerMaxFrame = h.maxFrame();
            rd = StreamCodec.reader(h.compression(), client.maxFrame);
            wr = StreamCodec.writer(client.compression, peerMaxFrame);
            cap = Math.min(client.maxInFlight, h.maxInFlight());
            pos += 1 + Handshake.HELLO;
            state = State.OPEN;
            backoff = MIN_BACKOFF;
            loop.timers().cancel(helloTimer);
            loop.timers().schedule(pingTimer, client.pingIntervalMillis, loop.nowMillis());
            while (queued.size() > cap) { // queued while connecting, beyond what the server takes
                TeleportCall extra = queued.pollLast();
                loop.timers().cancel(extra);
                extra.fail(ClientException.Phase.POOL, "teleport: the server takes " + cap + " requests in flight");
            }
            load = queued.size();
            if (!queued.isEmpty()) {
                scheduleBatch();
            }
        }
        if (rd != null) {
            return decoded(buf, pos, end);
        }
        int r = frames(buf, pos, end);
        return r < 0 ? end : r;
    }

    /**
     * Compressed input {@code [pos, end)}: decoded, its whole frames handled; returns where the rest
     * begins (an LZ4 block not yet whole stays with the connection, {@link #expectedInput} says how large).
     */
    private int decoded(ByteBuffer buf, int pos, int end) {
        while (state == State.OPEN) {
            int took = rd.decode(buf, pos, end, client.maxFrame + Frame.HEADER + 16 * 1024 - rd.in().position());
            if (took < 0) {
                drop(ClientException.Phase.RESPONSE, "corrupt " + rd.name() + " stream");
                return end;
            }
            pos += took;
            int r = frames(rd.in(), 0, rd.in().position());
            if (r < 0) {
                return end;
            }
            rd.consume(r);
            if ((took == 0 || pos >= end) && !rd.full()) {
                break;
            }
        }
        flushOut();
        return state == State.OPEN ? pos : end;
    }

    /**
     * Plain frames: while responses are owed, more follow a frame cut by a read's end, so the held input
     * asks for a full read buffer, not the pool's smallest: a burst of responses takes a read per read
     * buffer, not per 4 KiB (1,000 responses of 340 bytes: 8 reads, not 70). Nothing in flight: the frame.
     */
    @Override
    public int expectedInput() {
        if (rd != null) {
            return rd.expectedInput();
        }
        return inFlight.isEmpty() ? 0 : Integer.MAX_VALUE;
    }

    /** Handles the whole frames of {@code [pos, end)}: where the rest begins, or -1 when the connection closed. */
    private int frames(ByteBuffer buf, int pos, int end) {
        while (pos < end && state == State.OPEN) {
            int r = Frame.check(buf, pos, end, client.maxFrame);
            if (r == Frame.NEED_MORE) {
                break;
            }
            if (r < 0) {
                drop(ClientException.Phase.RESPONSE, r == Frame.TOO_LARGE ? "frame above " + client.maxFrame + " bytes"
                        : "unknown frame type " + Frame.type(buf, pos));
                return -1;
            }
            if (!onFrame(buf, pos, r)) {
                return -1;
            }
            pos = r;
        }
        calls.publish(); // the calls this pass answered, to the senders' threads at once
        if (rd == null) {
            flushOut();
        }
        return pos;
    }

    /** Where frames go: the connection's batch, or the plain batch of a deflate stream. */
    private dev.peregrine.buffer.OutputSink frameOut() {
        return wr != null ? wr.plain : c;
    }

    /** Appends a CANCEL or PING frame: empty, or the one byte {@code 0x01} of a PING's answer. */
    private void control(int id, byte type, boolean answer) {
        dev.peregrine.buffer.OutputSink to = frameOut();
        if (to.out().remaining() < Frame.HEADER + 1) {
            to.drain();
        }
        Frame.writeHeader(to.out(), answer ? 1 : 0, id, type);
        if (answer) {
            to.out().put((byte) 1);
        }
    }

    /** With deflate: the plain batch, compressed and sync-flushed, into the connection's batch. */
    private void flushOut() {
        if (wr != null && c != null && c.isOpen()) {
            wr.flush(c);
        }
    }

    private boolean onFrame(ByteBuffer buf, int pos, int end) {
        int id = Frame.id(buf, pos);
        switch (Frame.type(buf, pos)) {
            case Frame.RESPONSE:
                return response(id, buf, pos + Frame.HEADER, end);
            case Frame.PING:
                if (end - pos == Frame.HEADER) {
                    control(id, Frame.PING, true); // the answer: one byte 0x01
                } else {
                    pingOutstanding = false;
                }
                return true;
            case Frame.GOAWAY:
                goingAway = true; // every request up to its id is answered; later ones were not taken
                notTaken(id);
                if (inFlight.isEmpty()) {
                    retire();
                    return false;
                }
                return true;
            default:
                drop(ClientException.Phase.RESPONSE, Frame.typeName(Frame.type(buf, pos)) + " frame sent to a client");
                return false;
        }
    }

    private boolean response(int id, ByteBuffer buf, int from, int to) {
        TeleportCall call = inFlight.remove(id);
        if (call == null) {
            drop(ClientException.Phase.RESPONSE, "RESPONSE for id " + Integer.toUnsignedString(id) + ", which is not in flight");
            return false;
        }
        publishLoad();
        reader.expect(call.head);
        int r = reader.read(buf, from, to);
        if (r == ResponseReader.NEED_MORE) {
            r = reader.atEndOfInput(buf, from, to); // a body delimited by the frame's end
        }
        if (r != to) {
            drop(ClientException.Phase.RESPONSE, "RESPONSE " + Integer.toUnsignedString(id) + " is not exactly one HTTP/1.1 response"
                    + (r == ResponseReader.ERROR ? ": " + reader.error() : ""));
            call.fail(ClientException.Phase.RESPONSE, "malformed teleport response");
            return false;
        }
        loop.timers().cancel(call);
        if (!call.cancelled) {
            call.answer(reader, buf); // recycles a reuse-path call, then calls back
        } else {
            calls.recycle(call); // failed at its deadline; its id is free now, and nothing holds it
        }
        if (goingAway && inFlight.isEmpty()) {
            retire();
            return false;
        }
        return true;
    }

    /**
     * GOAWAY with {@code lastId}: the calls sent after it were not taken (ids rise as calls are sent;
     * the signed difference orders them across the wrap), so they go back to the front of the queue,
     * in the order sent, to leave on the next connection (the server ran none of them).
     */
    private void notTaken(int lastId) {
        for (TeleportCall call : inFlight.removeAfter(lastId)) { // the last sent first: addFirst restores the order
            call.id = 0;
            queued.addFirst(call);
        }
    }

    /**
     * GOAWAY and every call it took answered: this connection closes and the next one opens at once
     * (no backoff); the queued calls wait for it (the server's shutdown or limits, not a failure).
     */
    private void retire() {
        LOG.log(System.Logger.Level.DEBUG, () -> "teleport connection to " + hostKey() + " retired by GOAWAY; reconnecting");
        if (c != null) {
            c.releaseInput();
            c.close(); // onClosed: nothing in flight; reconnects at once, keeping the queue
        }
    }

    private void ping() {
        if (state != State.OPEN) {
            return;
        }
        if (pingOutstanding) {
            drop(ClientException.Phase.READ, "no answer to PING within " + client.pingIntervalMillis + " ms");
            return;
        }
        if (!readSinceTick && inFlight.isEmpty()) {
            pingOutstanding = true;
            control(0, Frame.PING, false);
            flushOut();
            c.flush();
        }
        readSinceTick = false;
        loop.timers().schedule(pingTimer, client.pingIntervalMillis, loop.nowMillis());
    }

    /** Closes this connection (bad input, refusal, GOAWAY): its calls fail with {@code phase}; reconnects later. */
    private void drop(ClientException.Phase phase, String why) {
        LOG.log(System.Logger.Level.DEBUG, () -> "teleport connection to " + hostKey() + " closed: " + why);
        goingAway = false; // a failure, not a retirement: calls fail, the reconnect waits its backoff
        failAll(phase, why);
        if (c != null) {
            c.releaseInput();
            c.close(); // onClosed follows: it schedules the reconnect
        }
    }

    private void failAll(ClientException.Phase phase, String why) {
        failInFlight(phase, why);
        TeleportCall[] failing = queued.toArray(new TeleportCall[0]); // a callback may send again, onto the queue
        queued.clear();
        load = 0;
        fail(List.of(failing), phase, why);
    }

    private void failInFlight(ClientException.Phase phase, String why) {
        List<TeleportCall> failing = inFlight.drain();
        load = queued.size();
        fail(failing, phase, why);
    }

    private void fail(List<TeleportCall> failing, ClientException.Phase phase, String why) {
        for (TeleportCall call : failing) {
            loop.timers().cancel(call);
            call.fail(phase, why);
        }
    }

    @Override
    public void onInputOverflow(Connection c) {
        drop(ClientException.Phase.TOO_LARGE, "frame larger than the largest input buffer");
    }

    @Override
    public void onEndOfInput(Connection c) {
        c.close();
    }

    @Override
    public void onShutdown(Connection c) {
        c.close();
    }

    @Override
    public void onClosed(Connection c) {
        boolean retired = goingAway && state == State.OPEN;
        if (retired) { // GOAWAY: what it took and did not answer is lost; the rest waits for the next connection
            failInFlight(ClientException.Phase.CLOSED, "teleport connection to " + hostKey() + " closed after GOAWAY");
        } else {
            failAll(ClientException.Phase.CLOSED, "teleport connection to " + hostKey() + " closed");
        }
        loop.timers().cancel(pingTimer);
        loop.timers().cancel(helloTimer);
        loop.fineTimers().cancel(batchTimer);
        flushScheduled = false;
        pingOutstanding = false;
        goingAway = false;
        if (rd != null) {
            rd.end();
            rd = null;
        }
        if (wr != null) {
            wr.end();
            wr = null;
        }
        this.c = null;
        if (retired) {
            connect();
        } else {
            down();
        }
    }

    /** The client closes: no reconnect; calls under way fail (SHUTDOWN). */
    void close() {
        State was = state;
        state = State.CLOSED;
        loop.timers().cancel(reconnectTimer);
        inbox.failWaiting();
        failAll(ClientException.Phase.SHUTDOWN, "teleport client closed");
        if (c != null && was != State.DOWN) {
            c.close();
        }
    }
}
