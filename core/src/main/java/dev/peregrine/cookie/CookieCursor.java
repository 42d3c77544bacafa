package dev.peregrine.cookie;

import dev.peregrine.buffer.AsciiView;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A cursor over the cookies of a request's {@code Cookie} header fields, read in place: iterating,
 * comparing and the views allocate nothing.
 *
 * <pre>
 *  Cookie: a=1; b="two";flag; =x; c=d=e
 *          ^ ^  ^  ^^^  ^     ^   ^ ^
 *          | |  |  |||  |     |   | value "d=e" (split at the first '=')
 *          | |  |  |||  |     |   name "c"
 *          | |  |  |||  |     skipped: empty name
 *          | |  |  |||  name "flag", value "" (no '=')
 *          | |  |  value "two" (one pair of surrounding DQUOTEs removed)
 *          | |  name "b"
 *          | value "1"
 *          name "a"
 * </pre>
 * Lenient where browsers are (RFC 6265 §5.4 is what user agents send; servers should accept what they
 * really send): pairs split on {@code ';'}, spaces and tabs around names and values trimmed, a pair
 * without {@code '='} is a name with an empty value, and value bytes outside cookie-octet are kept
 * rather than dropping the cookie. Several {@code Cookie} fields are read in order, as one list.
 * Names are case-sensitive (RFC 6265 §5.4 step 2 keeps them as sent).
 *
 * <p><b>Validity.</b> Views and indices are valid while the bytes given to {@link #reset} are (for a
 * request's cursor: while the handler runs). {@code String} results are copies.
 *
 * <p>Thread: one thread at a time (the thread running the handler, for a request's cursor).
 */
public final class CookieCursor {
    private ByteBuffer buf;
    private int[] starts = new int[2];
    private int[] ends = new int[2];
    private int sources;
    private int source;
    private int pos;
    private int nameStart;
    private int nameEnd;
    private int valueStart;
    private int valueEnd;
    private final AsciiView nameView = new AsciiView();
    private final AsciiView valueView = new AsciiView();

    /** A cursor with no source; give it one with {@link #reset} and {@link #add}. */
    public CookieCursor() {
    }

    /** A cursor over one {@code Cookie} field value (ISO-8859-1, one byte a char). Allocates. */
    public static CookieCursor of(CharSequence headerValue) {
        byte[] bytes = headerValue.toString().getBytes(StandardCharsets.ISO_8859_1);
        return new CookieCursor().reset(ByteBuffer.wrap(bytes)).add(0, bytes.length);
    }

    /** Forgets the sources and reads {@code buf} from now on; add field values with {@link #add}. */
    public CookieCursor reset(ByteBuffer buf) {
        this.buf = buf;
        this.sources = 0;
        return rewind();
    }

    /**
     * Adds one {@code Cookie} field value, bytes {@code [start, end)} of the buffer (absolute indices).
     * Allocates only when a request has more Cookie fields than any before on this cursor.
     */
    public CookieCursor add(int start, int end) {
        if (sources == starts.length) {
            starts = Arrays.copyOf(starts, sources * 2);
            ends = Arrays.copyOf(ends, sources * 2);
        }
        starts[sources] = start;
        ends[sources] = end;
        sources++;
        if (sources == 1) {
            pos = start;
        }
        return this;
    }

    /** Back before the first cookie. */
    public CookieCursor rewind() {
        source = 0;
        pos = sources > 0 ? starts[0] : 0;
        return this;
    }

    /** Moves to the next cookie; false when there is none left. */
    public boolean next() {
        while (source < sources) {
            int end = ends[source];
            while (pos < end) {
                int semi = pos;
                while (semi < end && buf.get(semi) != ';') {
                    semi++;
                }
                int p = pos;
                pos = semi + 1;
                if (pair(p, semi)) {
                    return true;
                }
            }
            source++;
            if (source < sources) {
                pos = starts[source];
            }
        }
        return false;
    }

    private boolean pair(int from, int to) {
        int eq = from;
        while (eq < to && buf.get(eq) != '=') {
            eq++;
        }
        int ns = skipSpace(from, eq);
        int ne = trimSpace(ns, eq);
        if (ns == ne) {
            return false; // RFC 6265 §5.4 / 6265bis §5.6: a cookie without a name is ignored
        }
        nameStart = ns;
        nameEnd = ne;
        if (eq == to) {
            valueStart = valueEnd = to;
            return true;
        }
        int vs = skipSpace(eq + 1, to);
        int ve = trimSpace(vs, to);
        if (ve - vs >= 2 && buf.get(vs) == '"' && buf.get(ve - 1) == '"') {
            vs++;
            ve--;
        }
        valueStart = vs;
        valueEnd = ve;
        return true;
    }

    private int skipSpace(int i, int to) {
        while (i < to && isSpace(buf.get(i))) {
            i++;
        }
        return i;
    }

    private int trimSpace(int from, int i) {
        while (i > from && isSpace(buf.get(i - 1))) {
            i--;
        }
        return i;
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t';
    }

    /** Whether the current cookie's name is {@code name} (exact, case-sensitive). */
    public boolean nameIs(CharSequence name) {
        return nameView.set(buf, nameStart, nameEnd).contentEquals(name);
    }

    /** The current name as a view (one byte a char; reused by the next call). */
    public CharSequence nameView() {
        return nameView.set(buf, nameStart, nameEnd);
    }

    /** The current value as a view, DQUOTEs removed (one byte a char; reused by the next call). */
    public CharSequence valueView() {
        return valueView.set(buf, valueStart, valueEnd);
    }

    /** The current name, decoded as UTF-8. Allocates. */
    public String name() {
        return string(nameStart, nameEnd);
    }

    /** The current value, decoded as UTF-8 (no percent-decoding: cookie values are opaque). Allocates. */
    public String value() {
        return string(valueStart, valueEnd);
    }

    /** The value of the first cookie named {@code name}, from the start, or {@code null}. Allocates the result. */
    public String first(CharSequence name) {
        rewind();
        while (next()) {
            if (nameIs(name)) {
                return value();
            }
        }
        return null;
    }

    /** Every cookie from the start, in order; the first of repeated names wins. Allocates the result. */
    public java.util.Map<String, String> toMap() {
        rewind();
        java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
        while (next()) {
            out.putIfAbsent(name(), value());
        }
        return out;
    }

    private String string(int from, int to) {
        byte[] bytes = new byte[to - from];
        buf.get(from, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
