package dev.peregrine;

import java.util.Arrays;

/**
 * The trailer fields that ended a request body ({@link Request#trailers()}): HTTP/1.1 chunked
 * trailers (RFC 9112 §7.1.2) or HTTP/2's trailing HEADERS (RFC 9113 §8.1), in arrival order, names as
 * the client sent them, values with surrounding whitespace removed.
 *
 * <p><b>Kept apart from the header fields</b> (RFC 9110 §6.5.2): a trailer never answers
 * {@link Request#header}, and nothing the server decides from the head (framing, routing,
 * authentication, content coding, limits) reads them; RFC 9110 §6.5.1 says why such fields mean
 * nothing at the end of a message. So every field the framing lets through is offered here as sent —
 * {@code Content-Length} or {@code Authorization} in a trailer included — and the handler that reads
 * one decides what it is worth. What a trailer section may not hold is refused as before: over
 * HTTP/1.1 a malformed field line (400) or trailers past {@code maxHeadSize} (431); over HTTP/2
 * pseudo-fields and connection-specific fields (stream error), or more than the header list size (431).
 *
 * <p>Read as any {@link Headers} (as {@link Request#headers()} is): {@code get}, {@code all},
 * {@code has}, by index; its values are {@code String}s already, so {@link #view} is {@link #get}.
 *
 * <p>Immutable; {@link #EMPTY} when the body had none (or has not been read to its end yet).
 * Thread: any.
 */
public final class Trailers implements Headers {
    /** No trailer fields. */
    public static final Trailers EMPTY = new Trailers(new String[0]);

    /** name0, value0, name1, value1... */
    private final String[] fields;

    private Trailers(String[] fields) {
        this.fields = fields;
    }

    /**
     * Trailers of the given fields, {@code namesAndValues} alternating (e.g. a test's
     * {@code Trailers.of("checksum", "abc")}); {@link #EMPTY} for none.
     *
     * @throws IllegalArgumentException for an odd count
     * @throws NullPointerException for a null name or value
     */
    public static Trailers of(String... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("names and values alternate: an even count, got " + namesAndValues.length);
        }
        if (namesAndValues.length == 0) {
            return EMPTY;
        }
        String[] f = namesAndValues.clone();
        for (String s : f) {
            if (s == null) {
                throw new NullPointerException("a trailer name or value");
            }
        }
        return new Trailers(f);
    }

    /** How many trailer fields there are (a repeated name counts each time). */
    @Override
    public int size() {
        return fields.length / 2;
    }

    public boolean isEmpty() {
        return fields.length == 0;
    }

    /** The name of field {@code index} (0-based, in arrival order), as sent. */
    @Override
    public String name(int index) {
        return fields[2 * checked(index)];
    }

    /** The value of field {@code index} (0-based, in arrival order). */
    @Override
    public String value(int index) {
        return fields[2 * checked(index) + 1];
    }

    /** The first value of trailer {@code name} (case-insensitive), or {@code null} when absent. */
    @Override
    public String get(String name) {
        for (int i = 0; i < fields.length; i += 2) {
            if (fields[i].equalsIgnoreCase(name)) {
                return fields[i + 1];
            }
        }
        return null;
    }

    /** The same as {@link #get}: the values are held as {@code String}s. */
    @Override
    public CharSequence view(String name) {
        return get(name);
    }

    /** Whether trailer {@code name} (case-insensitive) is present. */
    @Override
    public boolean has(String name) {
        return get(name) != null;
    }

    /** Every value of trailer {@code name} (case-insensitive), in order; empty when absent. */
    @Override
    public java.util.List<String> all(String name) {
        java.util.List<String> values = new java.util.ArrayList<>(1);
        for (int i = 0; i < fields.length; i += 2) {
            if (fields[i].equalsIgnoreCase(name)) {
                values.add(fields[i + 1]);
            }
        }
        return values;
    }

    private int checked(int index) {
        if (index < 0 || index >= size()) {
            throw new IndexOutOfBoundsException("trailer " + index + " of " + size());
        }
        return index;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Trailers && Arrays.equals(fields, ((Trailers) o).fields);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(fields);
    }

    /** {@code name: value} lines, for logs. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("Trailers[");
        for (int i = 0; i < fields.length; i += 2) {
            b.append(i == 0 ? "" : ", ").append(fields[i]).append(": ").append(fields[i + 1]);
        }
        return b.append(']').toString();
    }
}
