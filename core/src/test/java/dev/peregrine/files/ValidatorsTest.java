package dev.peregrine.files;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Validators}: entity-tag comparison (RFC 9110 §8.8.3.2, §13.1.1-2), read in place from the header. */
class ValidatorsTest {
    private static final String TAG = "\"186a0-18c\"";

    @Test
    void listsAreSplitAtCommasAndTrimmed() {
        assertTrue(Validators.matches(TAG, TAG, false));
        assertTrue(Validators.matches("\"a\", " + TAG, TAG, false));
        assertTrue(Validators.matches("\"a\",\t" + TAG + " ,\"b\"", TAG, false));
        assertTrue(Validators.matches(" * ", TAG, false));
        assertFalse(Validators.matches("\"a\", *", TAG, false), "* stands alone");
        assertFalse(Validators.matches("\"a\",,\"b\"", TAG, true));
        assertFalse(Validators.matches("", TAG, true));
        assertFalse(Validators.matches(TAG.substring(0, TAG.length() - 1), TAG, true));
        assertFalse(Validators.matches(TAG + "x", TAG, true));
    }

    @Test
    void weakTagsMatchOnlyWeakly() {
        assertTrue(Validators.matches("W/" + TAG, TAG, true), "If-None-Match compares weakly");
        assertFalse(Validators.matches("W/" + TAG, TAG, false), "If-Match compares strongly");
        assertTrue(Validators.matches("W/\"x\", W/" + TAG, TAG, true));
        assertFalse(Validators.matches("W/", TAG, true));
    }

    @Test
    void ifModifiedSinceEqualToOurLastModifiedIsNotParsedAndOtherDatesAre() {
        long modified = 1_700_000_000_123L;
        String ours = Validators.lastModified(modified);
        long seconds = modified / 1000;
        assertTrue(Validators.notModifiedSince(ours, ours, seconds));
        assertTrue(Validators.notModifiedSince(Validators.lastModified(modified + 5000), ours, seconds), "later: not modified since");
        assertFalse(Validators.notModifiedSince(Validators.lastModified(modified - 5000), ours, seconds), "earlier: modified since");
        assertFalse(Validators.notModifiedSince("yesterday", ours, seconds), "not a date: ignored");
        assertFalse(Validators.notModifiedSince(null, ours, seconds));
    }
}
