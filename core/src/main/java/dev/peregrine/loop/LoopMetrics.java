package dev.peregrine.loop;

/**
 * Counters of one loop. Written by the loop thread only, with plain stores, and never reset; another
 * thread reading them sees values that may lag slightly (a snapshot for monitoring, not for
 * synchronisation). A {@code long} field may in theory tear on a 32-bit JVM; on 64-bit JVMs it does not.
 */
public final class LoopMetrics {
    /** Index into {@link #timeouts}: a request head took longer than the header timeout (408). */
    public static final int TIMEOUT_HEADER = 0;
    /** Index into {@link #timeouts}: an incomplete body stopped arriving (408). */
    public static final int TIMEOUT_BODY = 1;
    /** Index into {@link #timeouts}: a keep-alive connection stayed idle (closed silently). */
    public static final int TIMEOUT_IDLE = 2;
    /** Index into {@link #timeouts}: the peer stopped taking our output (closed). */
    public static final int TIMEOUT_WRITE = 3;
    /** Index into {@link #timeouts}: the peer did not close after our FIN (closed). */
    public static final int TIMEOUT_DRAIN = 4;
    /** Size of {@link #rejectedByStatus}: statuses 0..599 are counted at their own index. */
    public static final int STATUS_SLOTS = 600;

    public long accepted;
    public long closed;
    public long requests;
    public long rejected;
    public long handlerErrors;
    public long bytesIn;
    public long bytesOut;
    /** Of {@link #bytesOut}, those sent straight from files to sockets ({@code sendfile(2)}), counted by the endpoints. */
    public long sendfileBytes;
    /** Times this loop stopped accepting because the server had {@code maxConnections} open. */
    public long acceptPauses;
    /** Times a connection of this loop stopped reading because its output or held input was at a limit. */
    public long readPauses;
    /** Warnings the watchdog ({@code server.LoopWatchdog}) logged about an inline handler holding this loop. */
    public long blockedLoopWarnings;
    /** WARNING lines because inline handlers held the loop past busyLoopWarning's share; the watchdog's. */
    public long busyLoopWarnings;
    /** Connections retired for {@code maxConnectionAge}: answered with {@code Connection: close}, or closed idle. */
    public long agedConnections;
    /** Connections closed because a PROXY-protocol listener does not trust their peer. */
    public long proxyUntrusted;
    /** Connections closed because their PROXY header was malformed or too long. */
    public long proxyMalformed;
    /** Rejections (error responses of our own, then close) by status code. */
    public final long[] rejectedByStatus = new long[STATUS_SLOTS];
    /** Timeouts by kind, indexed by the {@code TIMEOUT_*} constants. */
    public final long[] timeouts = new long[5];

    /** Connections open now. */
    public long open() {
        return accepted - closed;
    }

    private static final String[] TIMEOUT_KINDS = {"header", "body", "idle", "write", "drain"};

    /** Counts a timeout of kind {@code kind} (a {@code TIMEOUT_*} index), and records it for JFR when asked to. */
    public void timedOut(int kind) {
        timeouts[kind]++;
        if (dev.peregrine.jfr.PeregrineEvents.timeouts()) {
            dev.peregrine.jfr.PeregrineEvents.timedOut(TIMEOUT_KINDS[kind]);
        }
    }

    /** Counts an error response of ours with {@code status}. */
    public void rejected(int status) {
        rejected++;
        rejectedByStatus[status >= 0 && status < STATUS_SLOTS ? status : 0]++;
    }
}
