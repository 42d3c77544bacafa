package dev.peregrine.offloop;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One WARNING, once per JVM and marker kind, for a {@code Handlers.blocking}/{@code streaming} marker
 * that a user's own wrapper hides from the router's builder: the builder reads the marker only on the
 * handler given to the route, so a marker inside another lambda cannot move that lambda's caller.
 */
final class HiddenMarker {
    private static final System.Logger LOG = System.getLogger("dev.peregrine");
    private static final AtomicBoolean BLOCKING = new AtomicBoolean();
    private static final AtomicBoolean STREAMING = new AtomicBoolean();

    private HiddenMarker() {
    }

    static void report(String marker) {
        AtomicBoolean once = marker.endsWith("blocking") ? BLOCKING : STREAMING;
        if (once.compareAndSet(false, true)) {
            LOG.log(System.Logger.Level.WARNING, marker + "(...) is wrapped inside another handler, so it runs where that"
                    + " handler runs (" + Thread.currentThread().getName() + "): pass the marked handler to the route itself,"
                    + " or register the route with an Execution");
        }
    }
}
