package dev.peregrine.websocket.engine;

import dev.peregrine.loop.EventLoop;
import dev.peregrine.offloop.OffLoopExecutor;
import dev.peregrine.websocket.Payload;
import dev.peregrine.WebSocketHandler;
import dev.peregrine.websocket.WebSocketSession;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The callbacks of one connection of a route with {@code execution(BLOCKING)}: the protocol calls
 * this handler on the loop as it would an inline one; each call becomes an event in this connection's
 * queue, and the user's handler runs the events off the loop ({@link OffLoopExecutor}: a virtual
 * thread on JDK 21+, the server's blocking pool on 17), one at a time and in order.
 * <pre>
 *   loop: onText(view) --copy the payload--&gt; queue.add(event), events++, bytes += length
 *         no drain running? --&gt; executor.execute(drain)
 *   worker (drain): poll --&gt; user's callback (may block) --&gt; events--, bytes -= length
 *         stalled and no longer behind? --&gt; loop.execute(resume: Connection.resumeInput)
 *         queue empty --&gt; running = false, look once more (an add may have raced the check)
 *   loop, before each frame: behind (events &ge; 16 or bytes &ge; 256 KiB)? --&gt; stalled = true,
 *         the protocol stops consuming and says it is producing: the connection holds the rest
 *         (up to 64 KiB) and then stops reading from the peer
 * </pre>
 * Payloads are <b>copied</b> (a heap {@code byte[]} per message, ping and pong), never pinned: the
 * loop's read buffer and the message buffer are reused as soon as the loop moves on, and a callback
 * may keep what it got. A callback that throws is logged once (WARNING) and the connection is closed
 * with 1011 from the loop; the messages still queued behind it are dropped, {@code onClose} still runs.
 * {@code onClose} is always the last event and runs exactly once.
 *
 * <p>The stall handshake: the loop sets {@code stalled} and then looks at the counts again; the worker
 * lowers the counts and then takes {@code stalled}. Whichever comes second sees the other's write, so
 * a stall is never left without its resume.
 *
 * <p>Thread: the {@link WebSocketHandler} methods and {@link #stall} on the loop; {@link #drain} on the
 * worker; the counters are atomics shared by both.
 */
final class OffLoopCallbacks implements WebSocketHandler {
    private static final System.Logger LOG = System.getLogger("dev.peregrine.websocket");
    /** Events waiting before reading from the peer pauses. */
    static final int MAX_EVENTS = 16;
    /** Payload bytes waiting before reading from the peer pauses (one larger message is still taken). */
    static final int MAX_BYTES = 256 * 1024;

    private static final int OPEN = 0, TEXT = 1, BINARY = 2, PING = 3, PONG = 4, CLOSE = 5;

    private final WebSocketHandler handler;
    private final OffLoopExecutor executor;
    private final EventLoop loop;
    private final ConcurrentLinkedQueue<Event> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger events = new AtomicInteger();
    private final AtomicInteger bytes = new AtomicInteger();
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicBoolean stalled = new AtomicBoolean();
    /** Worker only: a callback threw; later messages are dropped. */
    private boolean failed;
    private WebSocketProtocol protocol;

    OffLoopCallbacks(WebSocketHandler handler, OffLoopExecutor executor, EventLoop loop) {
        this.handler = handler;
        this.executor = executor;
        this.loop = loop;
    }

    /** Loop: the protocol this handler serves (set before its first event). */
    void bind(WebSocketProtocol p) {
        protocol = p;
    }

    /**
     * Loop: whether the connection's callbacks are behind, so the protocol must stop consuming input
     * now; if so, the worker resumes the connection once they catch up.
     */
    boolean stall() {
        if (!behind()) {
            return false;
        }
        stalled.set(true);
        // Looked at again after the flag is up: the worker may have caught up in between and not seen it.
        return behind() || !stalled.compareAndSet(true, false);
    }

    /** Loop: whether the protocol is stopped on this connection's callbacks. */
    boolean stalled() {
        return stalled.get();
    }

    private boolean behind() {
        return events.get() >= MAX_EVENTS || bytes.get() >= MAX_BYTES;
    }

    // ---------------------------------------------------------------- the loop's side (the protocol calls these)

    @Override
    public void onOpen(WebSocketSession session) {
        add(new Event(OPEN, session, null, 0, null));
    }

    @Override
    public void onText(WebSocketSession session, Payload text) {
        add(new Event(TEXT, session, Copy.of(text), 0, null));
    }

    @Override
    public void onBinary(WebSocketSession session, Payload data) {
        add(new Event(BINARY, session, Copy.of(data), 0, null));
    }

    @Override
    public void onPing(WebSocketSession session, Payload data) {
        add(new Event(PING, session, Copy.of(data), 0, null));
    }

    @Override
    public void onPong(WebSocketSession session, Payload data) {
        add(new Event(PONG, session, Copy.of(data), 0, null));
    }

    @Override
    public void onClose(WebSocketSession session, int code, String reason) {
        add(new Event(CLOSE, session, null, code, reason));
    }

    private void add(Event e) {
        queue.add(e);
        events.incrementAndGet();
        bytes.addAndGet(e.length());
        if (running.compareAndSet(false, true)) {
            try {
                executor.execute(this::drain);
            } catch (RejectedExecutionException x) {
                running.set(false);
                queue.clear();
                LOG.log(System.Logger.Level.WARNING, "WebSocket handler " + handler.getClass().getName()
                        + ": the server's blocking executor is closed; callbacks of " + e.session.path() + " dropped");
            }
        }
    }

    // ---------------------------------------------------------------- the worker's side

    private void drain() {
        while (true) {
            Event e;
            while ((e = queue.poll()) != null) {
                run(e);
                events.decrementAndGet();
                bytes.addAndGet(-e.length());
                if (stalled.get() && !behind() && stalled.compareAndSet(true, false)) {
                    resume();
                }
            }
            running.set(false);
            // An add between the last poll and the flag going down found it up and started nothing.
            if (queue.isEmpty() || !running.compareAndSet(false, true)) {
                return;
            }
        }
    }

    private void run(Event e) {
        if (failed && e.kind != CLOSE) {
            return;
        }
        try {
            switch (e.kind) {
                case OPEN -> handler.onOpen(e.session);
                case TEXT -> handler.onText(e.session, e.payload);
                case BINARY -> handler.onBinary(e.session, e.payload);
                case PING -> handler.onPing(e.session, e.payload);
                case PONG -> handler.onPong(e.session, e.payload);
                default -> handler.onClose(e.session, e.code, e.reason);
            }
        } catch (Throwable t) {
            if (e.kind == CLOSE) {
                LOG.log(System.Logger.Level.WARNING, "WebSocket handler " + handler.getClass().getName() + ".onClose threw", t);
                return;
            }
            failed = true;
            LOG.log(System.Logger.Level.WARNING, "WebSocket handler " + handler.getClass().getName() + "."
                    + NAMES[e.kind] + " threw; closing the connection with 1011", t);
            WebSocketProtocol p = protocol;
            onLoop(p::offLoopCallbackFailed);
        }
    }

    private static final String[] NAMES = {"onOpen", "onText", "onBinary", "onPing", "onPong", "onClose"};

    private void resume() {
        WebSocketProtocol p = protocol;
        onLoop(p::resumeAfterCallbacks);
    }

    private void onLoop(Runnable task) {
        try {
            loop.execute(task);
        } catch (RuntimeException stopped) {
            // The loop has stopped: its connections are closed and onClose is queued already.
        }
    }

    /** One callback to make. */
    private static final class Event {
        final int kind;
        final WebSocketSession session;
        final Copy payload;
        final int code;
        final String reason;

        Event(int kind, WebSocketSession session, Copy payload, int code, String reason) {
            this.kind = kind;
            this.session = session;
            this.payload = payload;
            this.code = code;
            this.reason = reason;
        }

        int length() {
            return payload == null ? 0 : payload.length();
        }
    }

    /** A payload copied off the loop's buffers: valid for as long as the handler keeps it. */
    static final class Copy implements Payload {
        private final byte[] bytes;
        private final boolean text;

        private Copy(byte[] bytes, boolean text) {
            this.bytes = bytes;
            this.text = text;
        }

        static Copy of(Payload p) {
            return new Copy(p.bytes(), p.isText());
        }

        @Override
        public int length() {
            return bytes.length;
        }

        @Override
        public byte get(int index) {
            return bytes[index];
        }

        @Override
        public boolean isText() {
            return text;
        }

        @Override
        public void copyTo(ByteBuffer dst) {
            dst.put(bytes);
        }

        @Override
        public void copyTo(byte[] dst, int offset) {
            System.arraycopy(bytes, 0, dst, offset, bytes.length);
        }

        @Override
        public byte[] bytes() {
            return bytes.clone();
        }
    }
}
