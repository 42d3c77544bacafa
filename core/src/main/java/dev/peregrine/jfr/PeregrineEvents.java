package dev.peregrine.jfr;

import jdk.jfr.EventType;

import java.net.InetSocketAddress;

/**
 * The server's JDK Flight Recorder events, emitted only while a recording has them enabled:
 * <table>
 *   <caption>events (category Peregrine)</caption>
 *   <tr><th>name</th><th>when</th><th>fields</th></tr>
 *   <tr><td>{@code dev.peregrine.Rejection}</td><td>the server answers a request with an error of its own and
 *       closes (400, 408, 413, 414, 431, 501, 505...), or closes a PROXY-protocol connection (status 0)</td>
 *       <td>status, reason, remoteAddress</td></tr>
 *   <tr><td>{@code dev.peregrine.Timeout}</td><td>a connection's header, body, idle, write or drain timeout ran
 *       out, or an off-loop handler's {@code asyncTimeout}</td><td>kind</td></tr>
 *   <tr><td>{@code dev.peregrine.SlowHandler}</td><td>a request took at least {@code slowHandlerThreshold} from
 *       dispatch to its response encoded</td><td>route, method, status, elapsed</td></tr>
 * </table>
 * Like every custom JFR event they are on in any recording unless its settings turn them off
 * ({@code -XX:StartFlightRecording}, {@code jcmd <pid> JFR.start}, a {@code RecordingStream}); while
 * none runs they cost the checks below and nothing else.
 *
 * <p><b>Cost.</b> Each call site first asks {@link #rejections()}, {@link #timeouts()} or
 * {@link #slowHandlers()}: a load of the event type's enabled flag, which the recorder flips when a
 * recording enables the event. Nothing is built (no event object, no string) unless it says yes. Where
 * the {@code jdk.jfr} module is not in the runtime (a jlinked image without it), every check is false.
 *
 * <p>Thread: any.
 */
public final class PeregrineEvents {
    private static final EventType REJECTION;
    private static final EventType TIMEOUT;
    private static final EventType SLOW;

    static {
        EventType rejection = null;
        EventType timeout = null;
        EventType slow = null;
        try {
            jdk.jfr.FlightRecorder.register(RejectionEvent.class); // so their types exist before a recording names them
            jdk.jfr.FlightRecorder.register(TimeoutEvent.class);
            jdk.jfr.FlightRecorder.register(SlowHandlerEvent.class);
            rejection = EventType.getEventType(RejectionEvent.class);
            timeout = EventType.getEventType(TimeoutEvent.class);
            slow = EventType.getEventType(SlowHandlerEvent.class);
        } catch (LinkageError | RuntimeException | InternalError e) {
            // no jdk.jfr in this runtime, or JFR disabled (-XX:-FlightRecorder): no events
            rejection = null;
            timeout = null;
            slow = null;
        }
        REJECTION = rejection;
        TIMEOUT = timeout;
        SLOW = slow;
    }

    private PeregrineEvents() {
    }

    /**
     * Registers the event types with the recorder (the class initialisation does it): called when a
     * server starts, so the first request does not pay for it.
     */
    public static void init() {
        // the static initialiser above does the work
    }

    /** Whether a recording wants {@code dev.peregrine.Rejection} now. */
    public static boolean rejections() {
        return REJECTION != null && REJECTION.isEnabled();
    }

    /** Whether a recording wants {@code dev.peregrine.Timeout} now. */
    public static boolean timeouts() {
        return TIMEOUT != null && TIMEOUT.isEnabled();
    }

    /** Whether a recording wants {@code dev.peregrine.SlowHandler} now. */
    public static boolean slowHandlers() {
        return SLOW != null && SLOW.isEnabled();
    }

    /** Emits a rejection: {@code status} (0 when the connection closed without an answer), why, and who. */
    public static void rejected(int status, String reason, InetSocketAddress peer) {
        RejectionEvent e = new RejectionEvent();
        if (e.shouldCommit()) {
            e.status = status;
            e.reason = reason;
            e.remoteAddress = peer == null ? null : peer.toString();
            e.commit();
        }
    }

    /** Emits a timeout of {@code kind}: header, body, idle, write, drain or async. */
    public static void timedOut(String kind) {
        TimeoutEvent e = new TimeoutEvent();
        if (e.shouldCommit()) {
            e.kind = kind;
            e.commit();
        }
    }

    /** Emits a slow request: its route pattern ({@code ""} when none matched), method, status and duration (ns). */
    public static void slowHandler(String route, String method, int status, long nanos) {
        SlowHandlerEvent e = new SlowHandlerEvent();
        if (e.shouldCommit()) {
            e.route = route;
            e.method = method;
            e.status = status;
            e.elapsed = nanos;
            e.commit();
        }
    }
}
