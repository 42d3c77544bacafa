package dev.peregrine;

/**
 * Reading a message's fields by name or by index: {@link Request#headers()} (the request's header
 * fields) and {@link Trailers} (the fields after its body) both read this way.
 *
 * <pre>{@code
 * Headers h = req.headers();
 * String type = h.get("Content-Type");              // a copy, null when absent
 * CharSequence agent = h.view("User-Agent");        // no copy: valid while the handler runs
 * if (h.has("X-Debug")) { ... }
 * for (int i = 0; i < h.size(); i++) {
 *     System.out.println(h.name(i) + ": " + h.value(i)); // every field line, in arrival order
 * }
 * var forwarded = h.all("X-Forwarded-For");         // every line of a repeated name, a List<String>
 * }</pre>
 *
 * <p>Names are compared case-insensitively (RFC 9110 §5.1); values are as received, without the
 * whitespace around them. A repeated name is kept as its separate field lines: {@link #get} answers the
 * first, {@link #all} every one, none joined. Validity and cost are the owner's: for a request's
 * header fields, views ({@code CharSequence}) are valid while the handler runs and {@code String}s are
 * copies; {@link Trailers} is an immutable value. Thread: the owner's.
 */
public interface Headers {
    /** The first value of field {@code name} (case-insensitive), or {@code null} when absent. */
    String get(String name);

    /**
     * The first value of field {@code name} without copying it, or {@code null} when absent: for a
     * request a view over its buffer, valid while the handler runs (copy it with {@code toString()} to
     * keep it). Allocates nothing.
     */
    CharSequence view(String name);

    /** Whether field {@code name} (case-insensitive) is present. Allocates nothing. */
    boolean has(String name);

    /** How many field lines there are (a repeated name counts each time). */
    int size();

    /**
     * The name of field line {@code index} (0-based, in arrival order), as sent.
     *
     * @throws IndexOutOfBoundsException outside {@code [0, size())}
     */
    CharSequence name(int index);

    /**
     * The value of field line {@code index} (0-based, in arrival order).
     *
     * @throws IndexOutOfBoundsException outside {@code [0, size())}
     */
    CharSequence value(int index);

    /** Every value of field {@code name} (case-insensitive), one per field line, in order; empty when absent. */
    java.util.List<String> all(String name);
}
