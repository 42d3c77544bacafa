package dev.peregrine.exchange;

import dev.peregrine.Cookies;
import dev.peregrine.cookie.CookieCursor;

/**
 * {@link dev.peregrine.Request#cookies()} for a {@link RequestView}: a flyweight made once with the
 * view, reading through the view's one {@link CookieCursor} ({@link RequestCursors#cookies}), which each
 * call rewinds. Each method checks that the request is still live.
 *
 * <p>Thread: the thread running the handler.
 */
final class CookieGroup implements Cookies {
    private final RequestView view;

    CookieGroup(RequestView view) {
        this.view = view;
    }

    @Override
    public String get(String name) {
        return view.cookieCursor().first(name);
    }

    @Override
    public java.util.Map<String, String> map() {
        return view.cookieCursor().toMap();
    }

    @Override
    public CookieCursor cursor() {
        return view.cookieCursor();
    }
}
