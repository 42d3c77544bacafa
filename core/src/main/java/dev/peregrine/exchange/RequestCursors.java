package dev.peregrine.exchange;

import dev.peregrine.buffer.Ascii;
import dev.peregrine.cookie.CookieCursor;
import dev.peregrine.form.FormCursor;

import java.nio.ByteBuffer;

/**
 * A request's cursors over its query, urlencoded body and cookies ({@code dev.peregrine.form},
 * {@code dev.peregrine.cookie}, which know nothing of requests), made at first use and reused for
 * every request the owning {@link RequestView} holds afterwards.
 *
 * <p>Two query cursors: the one handed to the handler ({@link #query}) and one for the
 * {@code String} getters ({@link #lookup}), so that {@code req.query().get("a")} in the middle of a
 * handler's own iteration does not move the handler's cursor.
 *
 * <p>Thread: the thread running the handler.
 */
final class RequestCursors {
    private FormCursor query;
    private FormCursor lookup;
    private FormCursor form;
    private CookieCursor cookies;

    /** The handler's query cursor over {@code [start, end)} (empty when {@code start < 0}). */
    FormCursor query(ByteBuffer b, int start, int end) {
        if (query == null) {
            query = new FormCursor();
        }
        return start < 0 ? query.reset(b, 0, 0) : query.reset(b, start, end);
    }

    /** The getters' own query cursor, same source. */
    FormCursor lookup(ByteBuffer b, int start, int end) {
        if (lookup == null) {
            lookup = new FormCursor();
        }
        return start < 0 ? lookup.reset(b, 0, 0) : lookup.reset(b, start, end);
    }

    /** The body's pairs, {@code length} bytes at {@code start} of {@code b}. */
    FormCursor form(ByteBuffer b, int start, int length) {
        if (form == null) {
            form = new FormCursor();
        }
        return form.reset(b, start, start + length);
    }

    /** The cookies of every {@code Cookie} field among the view's header fields, rewound. */
    CookieCursor cookies(RequestView r) {
        if (cookies == null) {
            cookies = new CookieCursor();
        }
        ByteBuffer buf = r.headBuffer();
        cookies.reset(buf);
        for (int i = 0, n = r.fieldCount(); i < n; i++) {
            if (r.nameEnd(i) - r.nameStart(i) == 6 && Ascii.equalsIgnoreCase(buf, r.nameStart(i), r.nameEnd(i), "Cookie")) {
                cookies.add(r.valueStart(i), r.valueEnd(i));
            }
        }
        return cookies.rewind();
    }
}
