package dev.peregrine.exchange;

import dev.peregrine.Params;
import dev.peregrine.form.FormCursor;

/**
 * {@link dev.peregrine.Request#query()} for a {@link RequestView}: a flyweight made once with the view.
 * {@link #get}, {@link #all} and {@link #map} read with the view's lookup cursor and {@link #pairs}
 * hands out the handler's own ({@link RequestCursors}), so a lookup in the middle of the handler's
 * iteration does not move it. Each method checks that the request is still live.
 *
 * <p>Thread: the thread running the handler.
 */
final class QueryGroup implements Params {
    private final RequestView view;

    QueryGroup(RequestView view) {
        this.view = view;
    }

    @Override
    public String get(String name) {
        return view.queryParam(name);
    }

    @Override
    public java.util.List<String> all(String name) {
        return view.queryParams(name);
    }

    @Override
    public java.util.Map<String, java.util.List<String>> map() {
        return view.queryParams();
    }

    @Override
    public FormCursor pairs() {
        return view.queryPairs();
    }
}
