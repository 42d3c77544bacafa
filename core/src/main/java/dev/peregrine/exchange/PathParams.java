package dev.peregrine.exchange;

import dev.peregrine.buffer.AsciiView;

import java.nio.ByteBuffer;

/**
 * The matched route's path parameters for {@link RequestView}: the route's names and each value's
 * {@code [start, end)} in the buffer holding the path, recorded by the router without copying and
 * percent-decoded only when asked for. Thread: as the owning view.
 */
final class PathParams {
    private String[] names;
    private final int[] start = new int[16];
    private final int[] end = new int[16];
    /** How many parameters the route matched; 0 for a static route ({@link RequestView#reset} reads it). */
    int count;

    void clear() {
        count = 0;
    }

    void set(String[] names, int[] starts, int[] ends, int count) {
        this.names = names;
        System.arraycopy(starts, 0, start, 0, count);
        System.arraycopy(ends, 0, end, 0, count);
        this.count = count;
    }

    /** The value of {@code name} decoded from {@code path}, or null when the route has no such parameter. */
    String value(String name, ByteBuffer path) {
        int i = indexOf(name);
        return i < 0 ? null : RequestText.percentDecoded(path, start[i], end[i]);
    }

    /** {@code view} pointed at the raw (still percent-encoded) bytes of {@code name} in {@code path}, or null. */
    AsciiView raw(String name, ByteBuffer path, AsciiView view) {
        int i = indexOf(name);
        return i < 0 ? null : view.set(path, start[i], end[i]);
    }

    private int indexOf(String name) {
        for (int i = 0; i < count; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** Copies {@code from}'s parameters, each index moved by {@code shift}. {@code from} may be this. */
    void copy(PathParams from, int shift) {
        names = from.names;
        for (int i = 0; i < from.count; i++) {
            start[i] = from.start[i] + shift;
            end[i] = from.end[i] + shift;
        }
        count = from.count;
    }
}
