package dev.peregrine.client;

import dev.peregrine.h2.hpack.HpackDecoder;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Takes a response's decoded fields from {@link HpackDecoder} (one block at a time) and checks them
 * as RFC 9113 §8.3.2 and §8.2 ask of a response:
 * <pre>
 *   :status            exactly once, first, three digits                  else malformed
 *   other pseudo-fields, a pseudo-field after a regular one               malformed
 *   an uppercase name, a connection-specific field (§8.2.2)               malformed
 *   content-length     kept (the DATA must add up to it, §8.1.1)
 * </pre>
 * A name or value whose bytes equal the {@code String} this position held in the block before is
 * answered with that {@code String}, so a connection whose responses repeat their fields (all but
 * {@code date}, mostly) allocates none for them. Trailers ({@link #begin} with {@code trailers}) are
 * checked and dropped.
 *
 * <p>Thread: the connection's loop thread.
 */
final class H2Fields implements HpackDecoder.FieldSink {
    int status;
    int count;
    String[] names = new String[8];
    String[] values = new String[8];
    long contentLength;
    /** Why the block is malformed, or null. */
    String malformed;
    private boolean trailers;
    private boolean regularSeen;
    private String[] lastNames = new String[8];
    private String[] lastValues = new String[8];

    void begin(boolean trailers) {
        this.trailers = trailers;
        status = 0;
        count = 0;
        contentLength = -1;
        malformed = null;
        regularSeen = false;
    }

    @Override
    public void field(ByteBuffer buf, int nameStart, int nameEnd, int valueStart, int valueEnd) {
        if (malformed != null) {
            return;
        }
        byte[] a = buf.array();
        int off = buf.arrayOffset();
        if (nameEnd > nameStart && a[off + nameStart] == ':') {
            if (trailers || regularSeen || status != 0 || nameEnd - nameStart != 7 || !is(a, off + nameStart, ":status")) {
                malformed = "unexpected pseudo-field " + text(a, off + nameStart, nameEnd - nameStart);
                return;
            }
            status = threeDigits(a, off + valueStart, valueEnd - valueStart);
            if (status < 0) {
                malformed = "bad :status";
            }
            return;
        }
        regularSeen = true;
        for (int i = off + nameStart; i < off + nameEnd; i++) {
            byte b = a[i];
            if (b >= 'A' && b <= 'Z') {
                malformed = "uppercase field name";
                return;
            }
        }
        int n = nameEnd - nameStart;
        if (n == 10 && (is(a, off + nameStart, "connection") || is(a, off + nameStart, "keep-alive"))
                || n == 17 && is(a, off + nameStart, "transfer-encoding") || n == 7 && is(a, off + nameStart, "upgrade")) {
            malformed = "connection-specific field";
            return;
        }
        if (trailers) {
            return;
        }
        if (status == 0) {
            malformed = "no :status before the fields";
            return;
        }
        if (count == names.length) {
            names = Arrays.copyOf(names, count * 2);
            values = Arrays.copyOf(values, count * 2);
            lastNames = Arrays.copyOf(lastNames, count * 2);
            lastValues = Arrays.copyOf(lastValues, count * 2);
        }
        String name = cached(lastNames, count, a, off + nameStart, n);
        String value = cached(lastValues, count, a, off + valueStart, valueEnd - valueStart);
        names[count] = name;
        values[count] = value;
        count++;
        if (n == 14 && name.equals("content-length")) {
            long v = digits(a, off + valueStart, valueEnd - valueStart);
            if (v < 0 || contentLength >= 0 && contentLength != v) {
                malformed = "bad content-length";
            }
            contentLength = v;
        }
    }

    /** After the block: a complete head was read ({@code :status} given, nothing malformed). */
    boolean complete() {
        if (malformed == null && !trailers && status == 0) {
            malformed = "no :status";
        }
        return malformed == null;
    }

    private static String cached(String[] last, int i, byte[] a, int at, int len) {
        String s = last[i];
        if (s != null && s.length() == len) {
            int k = 0;
            while (k < len && s.charAt(k) == (char) (a[at + k] & 0xff)) {
                k++;
            }
            if (k == len) {
                return s;
            }
        }
        s = new String(a, at, len, StandardCharsets.ISO_8859_1);
        last[i] = s;
        return s;
    }

    private static boolean is(byte[] a, int at, String s) {
        for (int i = 0; i < s.length(); i++) {
            if (a[at + i] != s.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static int threeDigits(byte[] a, int at, int len) {
        if (len != 3) {
            return -1;
        }
        int v = 0;
        for (int i = 0; i < 3; i++) {
            int d = a[at + i] - '0';
            if (d < 0 || d > 9) {
                return -1;
            }
            v = v * 10 + d;
        }
        return v >= 100 ? v : -1;
    }

    private static long digits(byte[] a, int at, int len) {
        if (len == 0 || len > 18) {
            return -1;
        }
        long v = 0;
        for (int i = 0; i < len; i++) {
            int d = a[at + i] - '0';
            if (d < 0 || d > 9) {
                return -1;
            }
            v = v * 10 + d;
        }
        return v;
    }

    private static String text(byte[] a, int at, int len) {
        return new String(a, at, Math.min(len, 40), StandardCharsets.ISO_8859_1);
    }
}
