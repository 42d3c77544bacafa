package dev.peregrine.exchange;

import dev.peregrine.Params;
import dev.peregrine.Request;
import dev.peregrine.form.BadFormException;
import dev.peregrine.form.FormCursor;

import java.util.List;
import java.util.Map;

/**
 * {@link Request#form()} for a {@link RequestView}: the pairs of an
 * {@code application/x-www-form-urlencoded} body in the loop's buffer, a flyweight made once with the
 * view. ({@code DecodedRequest}, in the API package, which may not name this one, has
 * {@code DecodedForm} with the same rules: keep the two in step.)
 *
 * <p>{@link #map}, {@link #get} and {@link #all} check the request's Content-Type first (a request
 * with neither a Content-Type nor a body has no fields; another type is a
 * {@link BadFormException}, 415) and read the body through its length, which refuses a body streamed
 * on the loop and reads one streamed to a blocking handler whole. {@link #pairs} lends the cursor as
 * it is, unchecked, for handlers that check the type themselves.
 *
 * <p>Thread: the thread running the handler.
 */
final class FormGroup implements Params {
    private final RequestView view;

    FormGroup(RequestView view) {
        this.view = view;
    }

    @Override
    public Map<String, List<String>> map() {
        String type = view.header("Content-Type"); // each getter checks that the request is live
        if (type == null && view.bodyLength() == 0) {
            return Map.of();
        }
        if (!isUrlencoded(type)) {
            throw BadFormException.unsupportedType("form()", type);
        }
        return view.formPairs().toMap();
    }

    /**
     * Whether the media type (RFC 9110 §8.3.1: case-insensitive, parameters after a {@code ;}) is
     * {@code application/x-www-form-urlencoded}; the same reading as the API's {@code MediaTypes}.
     */
    private static boolean isUrlencoded(String contentType) {
        if (contentType == null) {
            return false;
        }
        int semi = contentType.indexOf(';');
        return (semi < 0 ? contentType : contentType.substring(0, semi)).trim()
                .equalsIgnoreCase("application/x-www-form-urlencoded");
    }

    @Override
    public FormCursor pairs() {
        return view.formPairs();
    }
}
