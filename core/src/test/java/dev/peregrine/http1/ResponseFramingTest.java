package dev.peregrine.http1;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ResponseFramingTest {
    @Test
    void contentLengthValues() {
        assertEquals(0, ResponseFraming.contentLength("0"));
        assertEquals(123, ResponseFraming.contentLength(" 123 "));
        assertEquals(5, ResponseFraming.contentLength("5, 5,5"));
        assertEquals(999_999_999_999_999_999L, ResponseFraming.contentLength("999999999999999999"));
        assertEquals(ResponseFraming.CONFLICTING, ResponseFraming.contentLength("5, 6"));
        for (String bad : new String[] {"", " ", ",", "+5", "-5", "5a", "0x10", "1234567890123456789", "５"}) {
            assertEquals(ResponseFraming.MALFORMED, ResponseFraming.contentLength(bad), bad);
        }
    }

    @Test
    void chunkedMustBeTheLastCoding() {
        for (String te : new String[] {"chunked", "CHUNKED", " chunked\t", "gzip, chunked", "gzip,chunked,", "chunked , ,"}) {
            assertTrue(ResponseFraming.lastCodingIsChunked(te), te);
        }
        for (String te : new String[] {"", ",", "gzip", "chunked, gzip", "chunkedx", "xchunked", "chunked;q=1"}) {
            assertFalse(ResponseFraming.lastCodingIsChunked(te), te);
        }
        for (String te : new String[] {"chunked, gzip", "chunked,chunked", "Chunked , identity"}) {
            assertTrue(ResponseFraming.chunkedBeforeAnother(te), te);
        }
        for (String te : new String[] {"chunked", "gzip, chunked", "chunked, ,", "gzip"}) {
            assertFalse(ResponseFraming.chunkedBeforeAnother(te), te);
        }
    }
}
