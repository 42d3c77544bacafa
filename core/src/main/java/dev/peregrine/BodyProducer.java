package dev.peregrine;

import java.nio.ByteBuffer;

/**
 * Produces a response body of unknown length on the event loop, pulled whenever the connection can
 * take more ({@link Response#stream(BodyProducer)}). Each piece goes out as one chunk (RFC 9112 §7.1).
 *
 * <p>Thread: the connection's event loop; must not block. Called only while the connection's unsent
 * output is empty, so a slow client slows the producer instead of filling memory.
 */
@FunctionalInterface
public interface BodyProducer {
    /**
     * Puts the next bytes of the body into {@code dst} with relative puts (up to
     * {@code dst.remaining()}; do not change its limit) and returns {@code true} while more will
     * follow, {@code false} when this call's bytes end the body. A call that returns {@code true} must
     * put at least one byte: a producer that must wait for its data should use
     * {@link Response#async()} and the completion's {@link Response#outputStream()} instead.
     * An exception closes the connection: the client sees a truncated body.
     */
    boolean produce(ByteBuffer dst) throws Exception;
}
