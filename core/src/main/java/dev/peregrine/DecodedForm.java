package dev.peregrine;

import dev.peregrine.form.BadFormException;
import dev.peregrine.form.FormCursor;

import java.util.List;
import java.util.Map;

/**
 * {@link Request#form()} of a {@link DecodedRequest}: the urlencoded fields of the decoded body, with
 * the rules of the loop's view ({@code exchange.FormGroup}, which the API package may not name): the
 * Content-Type checked first by {@link #map}, {@link #get} and {@link #all}, a request with neither a
 * Content-Type nor a body has no fields, {@link #pairs} lends the cursor unchecked. Keep the two in step.
 *
 * <p>Thread: the thread running the handler.
 */
final class DecodedForm implements Params {
    private final DecodedRequest owner;

    DecodedForm(DecodedRequest owner) {
        this.owner = owner;
    }

    @Override
    public Map<String, List<String>> map() {
        String type = owner.header("Content-Type");
        if (type == null && owner.bodyLength() == 0) {
            return Map.of();
        }
        if (!MediaTypes.is(type, "application/x-www-form-urlencoded")) {
            throw BadFormException.unsupportedType("form()", type);
        }
        return pairs().toMap();
    }

    @Override
    public FormCursor pairs() {
        return owner.formPairs();
    }
}
