package dev.peregrine;

import dev.peregrine.form.FormCursor;

/**
 * {@code name=value} pairs: a request's query string ({@link Request#query()}) or its
 * {@code application/x-www-form-urlencoded} body ({@link Request#form()}), decoded the same way
 * (UTF-8, {@code +} as a space, {@code %XX} a byte; see {@link FormCursor}).
 *
 * <pre>{@code
 * // GET /search?q=caf%C3%A9&tag=a&tag=b&flag
 * Params q = req.query();
 * q.get("q");        // "café"
 * q.get("tag");      // "a": the first
 * q.all("tag");      // ["a", "b"]
 * q.get("flag");     // "": a name without '='
 * q.get("page");     // null: absent
 * q.map();           // {q=[café], tag=[a, b], flag=[""]}: names in first-seen order
 * for (FormCursor c = q.pairs(); c.next(); ) {       // no allocation
 *     if (c.nameIs("tag") && c.valueIs("b")) { ... }
 * }
 * }</pre>
 *
 * <p>The raw query string (percent-encoding kept) is {@link Request#rawQuery()}. Validity: the owning
 * request's ({@link Request}); the {@code String}s, lists and maps are copies. Thread: the thread
 * running the handler.
 */
public interface Params {
    /**
     * The first value of {@code name}, decoded; {@code ""} for a name without {@code '='}; {@code null}
     * when absent. The query's reads the pairs in place and allocates the result only; this default
     * (the form's) reads {@link #map}.
     */
    default String get(String name) {
        java.util.List<String> v = map().get(name);
        return v == null ? null : v.get(0);
    }

    /** Every value of {@code name}, decoded, in order; empty (a new, modifiable list) when absent. */
    default java.util.List<String> all(String name) {
        java.util.List<String> v = map().get(name);
        return v == null ? new java.util.ArrayList<>(0) : v;
    }

    /**
     * Every pair, decoded: names in first-seen order, each with its values in order.
     *
     * @throws dev.peregrine.form.FormLimitException for more than {@link FormCursor#DEFAULT_MAX_PAIRS}
     *     pairs (uncaught, the server answers 413)
     */
    java.util.Map<String, java.util.List<String>> map();

    /**
     * A cursor over the pairs, before the first: iterate, compare decoded names and values, decode into
     * your own array, all without allocating. The request's one cursor for this source, reset by each
     * call ({@link #get}, {@link #all} and {@link #map} of the query use another, so they do not move
     * it). Valid while the handler runs.
     */
    FormCursor pairs();
}
