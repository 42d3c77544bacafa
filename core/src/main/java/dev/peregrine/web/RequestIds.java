package dev.peregrine.web;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;

/**
 * Request ids for one loop ({@code Server.Builder.requestIds(true)}): the client's
 * {@code X-Request-Id} when it is a valid one, else a new id made of a random prefix, drawn once per
 * loop from {@link SecureRandom}, and the loop's request counter in hex:
 * <pre>
 *   3f9c0a7d51e2-1a2b      12 hex digits per loop (48 random bits), '-', counter (1 to 16 hex digits)
 * </pre>
 * Unique within the process (each loop has its own prefix and counter) and, with 48 random bits per
 * loop, across restarts and instances in practice; cheap (no random draw, no UUID per request: one
 * small {@code String}). Not secret and not unguessable: an id names a request in logs, it grants
 * nothing.
 *
 * <p>An incoming id is kept when it has 1 to {@value #MAX_LENGTH} characters, each a letter, a digit
 * or one of {@code - _ . : + / = @}; anything else (too long, spaces, quotes, controls, non-ASCII) is
 * replaced, so that an id can go into a log line or a header unescaped.
 *
 * <p>Thread: the owning loop.
 */
public final class RequestIds {
    /** Longest incoming id kept. */
    public static final int MAX_LENGTH = 128;
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final int PREFIX = 12;

    /** The prefix, '-', and room for a 64-bit counter in hex. */
    private final byte[] scratch = new byte[PREFIX + 1 + 16];
    private long counter;

    /** A generator with a fresh random prefix. */
    public RequestIds() {
        this(new SecureRandom().nextLong());
    }

    /** A generator whose prefix comes from {@code seed} (its low 48 bits). */
    RequestIds(long seed) {
        for (int i = 0; i < PREFIX; i++) {
            scratch[i] = HEX[(int) (seed >>> (4 * (PREFIX - 1 - i))) & 0xF];
        }
        scratch[PREFIX] = '-';
    }

    /** The id for a request whose {@code X-Request-Id} is {@code incoming} (null when absent). */
    public String idFor(CharSequence incoming) {
        if (incoming != null && valid(incoming)) {
            return incoming.toString();
        }
        return next();
    }

    /** A new id. */
    public String next() {
        long n = ++counter;
        int digits = Math.max(1, (64 - Long.numberOfLeadingZeros(n) + 3) / 4);
        int at = PREFIX + 1;
        for (int i = digits - 1; i >= 0; i--) {
            scratch[at++] = HEX[(int) (n >>> (4 * i)) & 0xF];
        }
        return new String(scratch, 0, at, StandardCharsets.ISO_8859_1);
    }

    /** Whether {@code id} may be kept as it is (see the class javadoc). */
    public static boolean valid(CharSequence id) {
        int n = id.length();
        if (n == 0 || n > MAX_LENGTH) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = id.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '_' || c == '.' || c == ':' || c == '+' || c == '/' || c == '=' || c == '@';
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
