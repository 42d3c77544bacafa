package dev.peregrine.websocket.engine;

import java.security.SecureRandom;

/**
 * Masking keys for a client's frames: RFC 6455 §5.3 asks for a fresh key per frame that the server
 * (or anything between) cannot predict, "derived from a strong source of entropy" (§10.3). Keys are
 * drawn from a {@link SecureRandom} 64 bytes at a time, so a frame costs no call into it.
 *
 * <p>Thread: the connection's loop (one per client connection).
 */
final class MaskSource {
    private static final SecureRandom RANDOM = new SecureRandom();
    private final byte[] pool = new byte[64];
    private int next = pool.length;

    int nextKey() {
        if (next == pool.length) {
            RANDOM.nextBytes(pool);
            next = 0;
        }
        int k = ((pool[next] & 0xFF) << 24) | ((pool[next + 1] & 0xFF) << 16) | ((pool[next + 2] & 0xFF) << 8) | (pool[next + 3] & 0xFF);
        next += 4;
        return k;
    }
}
