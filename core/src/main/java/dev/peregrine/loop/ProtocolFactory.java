package dev.peregrine.loop;

/**
 * Gives each connection a listener accepts its first {@link Protocol}. There is one per loop, made
 * by {@link LoopSetup#protocols()} for that loop's {@link LoopContext}, so it is also where the
 * connections of one loop share a protocol's state (for HTTP/1.1: the parser, the request and
 * response views, the encoder; see {@code dev.peregrine.server.ServerLoop}).
 *
 * <p>Thread: the loop thread.
 */
public interface ProtocolFactory {
    /** The protocol of a connection just accepted. */
    Protocol newProtocol();

    /** The loop clock moved to {@code nowMillis} (called by {@link LoopContext#tick} when it changed). */
    default void onClock(long nowMillis) {
    }

    /** The loop has stopped: release what the per-loop state holds. */
    default void free() {
    }
}
