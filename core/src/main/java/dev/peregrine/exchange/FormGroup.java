package dev.peregrine.exchange;

import dev.peregrine.Params;
import dev.peregrine.Request;
import dev.peregrine.form.BadFormException;
import dev.peregrine.form.FormCursor;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@link Request#form()}: the pairs of an {@code application/x-www-form-urlencoded} body, for any
 * request that can lend a cursor over its body. Made once with its request ({@link RequestView}'s
 * over the body in the loop's buffer, {@code DecodedRequest}'s over the decoded body), never per call.
 *
 * <p>{@link #map}, {@link #get} and {@link #all} check the request's Content-Type first (a request
 * with neither a Content-Type nor a body has no fields; another type is a
 * {@link BadFormException}, 415) and read the body through its length, which refuses a body streamed
 * on the loop and reads one streamed to a blocking handler whole. {@link #pairs} lends the cursor as
 * it is, unchecked, for handlers that check the type themselves.
 *
 * <p>Thread: the thread running the handler.
 */
public final class FormGroup implements Params {
    private final Request owner;
    private final Supplier<FormCursor> pairs;

    /**
     * @param owner the request whose Content-Type and body length are checked (and whose liveness, by
     *     asking it)
     * @param pairs the request's one cursor over its body, reset by each call
     */
    public FormGroup(Request owner, Supplier<FormCursor> pairs) {
        this.owner = owner;
        this.pairs = pairs;
    }

    @Override
    public Map<String, List<String>> map() {
        String type = owner.header("Content-Type");
        if (type == null && owner.bodyLength() == 0) {
            return Map.of();
        }
        if (!isUrlencoded(type)) {
            throw BadFormException.unsupportedType("form()", type);
        }
        return pairs.get().toMap();
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
    public String get(String name) {
        List<String> v = map().get(name);
        return v == null ? null : v.get(0);
    }

    @Override
    public List<String> all(String name) {
        List<String> v = map().get(name);
        return v == null ? new java.util.ArrayList<>(0) : v;
    }

    @Override
    public FormCursor pairs() {
        return pairs.get();
    }
}
