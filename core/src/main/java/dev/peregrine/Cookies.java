package dev.peregrine;

import dev.peregrine.cookie.CookieCursor;

/**
 * A request's cookies ({@link Request#cookies()}): the {@code name=value} pairs of every {@code Cookie}
 * field line, read as RFC 6265 §5.4 and {@link CookieCursor} say. Setting a cookie is the response's:
 * {@link Response#cookie(Cookie)}.
 *
 * <pre>{@code
 * // Cookie: sid=abc; theme=dark
 * String sid = req.cookies().get("sid");          // "abc"; null when absent
 * var all = req.cookies().map();                  // {sid=abc, theme=dark}
 * for (var c = req.cookies().cursor(); c.next(); ) {  // a CookieCursor: no allocation
 *     if (c.nameIs("theme")) {
 *         CharSequence theme = c.valueView();         // valid while the handler runs
 *     }
 * }
 * }</pre>
 *
 * <p>The first of repeated names wins. Validity: the owning request's; the {@code String}s and maps are
 * copies. Thread: the thread running the handler.
 */
public interface Cookies {
    /** The value of cookie {@code name}, or {@code null}; the first of repeated names wins. Allocates the result only. */
    String get(String name);

    /** Every cookie, names in order (the first of repeated names wins). */
    java.util.Map<String, String> map();

    /**
     * A cursor over the cookies, before the first, without allocating. The request's one cursor, reset
     * by each call (and by {@link #get} and {@link #map}). Valid while the handler runs.
     */
    CookieCursor cursor();
}
