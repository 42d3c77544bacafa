package dev.peregrine.exchange;

import dev.peregrine.Headers;

/**
 * {@link dev.peregrine.Request#headers()} for a {@link RequestView}: a flyweight made once with the
 * view, which answers from the view's offsets of whatever request it holds now. Each method checks, as
 * the view's own getters do, that the request is still live ({@link RequestView#expire}).
 *
 * <p>Thread: the thread running the handler.
 */
final class HeaderGroup implements Headers {
    private final RequestView view;

    HeaderGroup(RequestView view) {
        this.view = view;
    }

    @Override
    public String get(String name) {
        return view.header(name);
    }

    @Override
    public CharSequence view(String name) {
        return view.headerView(name);
    }

    @Override
    public boolean has(String name) {
        return view.hasHeader(name);
    }

    @Override
    public int size() {
        return view.headerCount();
    }

    @Override
    public CharSequence name(int index) {
        return view.headerName(index);
    }

    @Override
    public CharSequence value(int index) {
        return view.headerValue(index);
    }

    @Override
    public java.util.List<String> all(String name) {
        return view.headerValues(name);
    }

    @Override
    public String toString() {
        return "Headers(" + view.headerCount() + " fields)";
    }
}
