package dev.peregrine.files;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link StaticFiles}' entity-tag comparison (RFC 9110 §8.8.3.2, §13.1.1-2), read in place from the header. */
class StaticFilesTest {
    private static final String TAG = "\"186a0-18c\"";

    @Test
    void listsAreSplitAtCommasAndTrimmed() {
        assertTrue(StaticFiles.matches(TAG, TAG, false));
        assertTrue(StaticFiles.matches("\"a\", " + TAG, TAG, false));
        assertTrue(StaticFiles.matches("\"a\",\t" + TAG + " ,\"b\"", TAG, false));
        assertTrue(StaticFiles.matches(" * ", TAG, false));
        assertFalse(StaticFiles.matches("\"a\", *", TAG, false), "* stands alone");
        assertFalse(StaticFiles.matches("\"a\",,\"b\"", TAG, true));
        assertFalse(StaticFiles.matches("", TAG, true));
        assertFalse(StaticFiles.matches(TAG.substring(0, TAG.length() - 1), TAG, true));
        assertFalse(StaticFiles.matches(TAG + "x", TAG, true));
    }

    @Test
    void weakTagsMatchOnlyWeakly() {
        assertTrue(StaticFiles.matches("W/" + TAG, TAG, true), "If-None-Match compares weakly");
        assertFalse(StaticFiles.matches("W/" + TAG, TAG, false), "If-Match compares strongly");
        assertTrue(StaticFiles.matches("W/\"x\", W/" + TAG, TAG, true));
        assertFalse(StaticFiles.matches("W/", TAG, true));
    }
}
