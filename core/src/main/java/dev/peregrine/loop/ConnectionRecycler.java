package dev.peregrine.loop;

/**
 * Keeps closed connections of one loop, with their protocol, to serve the next accepted sockets, so
 * that a connection per request allocates none of Peregrine's own objects (fasthttp pools its
 * per-connection state the same way). Only a connection nothing else can still reach is kept:
 * <ul>
 *   <li>made by the listener with no {@link EndpointLayer} (no TLS or PROXY endpoint, whose tasks and
 *       handshakes hold the connection beyond its close);</li>
 *   <li>never switched to another protocol;</li>
 *   <li>whose protocol says it holds nothing reachable from elsewhere ({@link Protocol#recyclable}:
 *       for HTTP/1.1, no exchange, body or file ever went off the loop).</li>
 * </ul>
 * Two more rules make reuse safe against stale references:
 * <ul>
 *   <li><b>Late, not at close.</b> A closed connection waits in {@code closed} until a task queued at
 *       its close runs. Tasks run in the order they were queued, so every task queued before the close
 *       (which could name the connection) has run, and seen it CLOSED, before it is reused. A connection
 *       closed after the task was queued waits for the task's next turn, queued behind it.</li>
 *   <li><b>Reset on reuse.</b> State is reset when a connection is handed out again
 *       ({@link Connection#reopen}), not when it is kept: code still unwinding from the close may
 *       touch it meanwhile, and it stays CLOSED, so idempotent calls stay harmless.</li>
 * </ul>
 * The transports' endpoints are never reused and ignore every event after their own close, so a
 * socket's late readiness cannot reach a connection that now serves another socket.
 * <pre>
 *   close() --kept(c)--&gt; closed[0..n) --task runs: entries before its mark--&gt; spare[0..m) --take()--&gt; reopen
 *                        (full: dropped)                                       (full: dropped)
 * </pre>
 * <p>Thread: the loop thread.
 */
final class ConnectionRecycler implements Runnable {
    /** Connections kept per loop at most: enough for bursts of short connections, bounded memory after one. */
    static final int SPARES = 256;

    private final LoopContext ctx;
    private final Connection[] spare = new Connection[SPARES];
    private int spares;
    private final Connection[] closed = new Connection[SPARES];
    private int closedCount;
    /** Entries of {@code closed} that were there when the task was queued: the ones it may move. */
    private int mark;
    private boolean queued;

    ConnectionRecycler(LoopContext ctx) {
        this.ctx = ctx;
    }

    /** A connection that may be reused has closed: keep it for after the tasks queued so far. */
    void kept(Connection c) {
        if (closedCount == closed.length) {
            return; // more closes in one turn than spares kept: the rest are garbage
        }
        closed[closedCount++] = c;
        if (!queued) {
            queue();
        }
    }

    /** A connection to reopen for a new socket, or null. */
    Connection take() {
        if (spares == 0) {
            return null;
        }
        Connection c = spare[--spares];
        spare[spares] = null;
        return c;
    }

    private void queue() {
        queued = true;
        mark = closedCount;
        EventLoop loop = ctx.eventLoop();
        if (loop == null) {
            queued = false; // a context driven by hand (tests) with no loop: nothing is kept
            closedCount = 0;
            java.util.Arrays.fill(closed, null);
            return;
        }
        loop.execute(this);
    }

    /** The task: every task queued before the closes up to {@code mark} has run. */
    @Override
    public void run() {
        queued = false;
        int moved = mark;
        for (int i = 0; i < moved; i++) {
            Connection c = closed[i];
            closed[i] = null;
            if (spares < spare.length) {
                spare[spares++] = c;
            }
        }
        int left = closedCount - moved;
        if (left > 0) {
            System.arraycopy(closed, moved, closed, 0, left);
            java.util.Arrays.fill(closed, left, closedCount, null);
        }
        closedCount = left;
        if (left > 0) {
            queue(); // closed after this task was queued: after the tasks queued since
        }
    }

    /** Spare connections now (tests). */
    int spares() {
        return spares;
    }
}
