package dev.peregrine.files;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@code multipart/byteranges} body (RFC 9110 §14.6) read back strictly, for the tests: each part's
 * Content-Range and bytes, the delimiters exactly where RFC 2046 §5.1.1 puts them.
 */
public final class ByteRangesBody {
    /** One part: the range its Content-Range names and the bytes it carried. */
    public record Part(long first, long last, long size, String type, byte[] bytes) {
    }

    private ByteRangesBody() {
    }

    public static List<Part> parse(String contentType, byte[] body) {
        assertTrue(contentType.startsWith("multipart/byteranges; boundary="), contentType);
        byte[] delimiter = ("\r\n--" + contentType.substring(contentType.indexOf('=') + 1)).getBytes(StandardCharsets.ISO_8859_1);
        List<Part> parts = new ArrayList<>();
        int at = 0;
        for (;;) {
            assertTrue(startsWith(body, at, delimiter), "a delimiter at " + at);
            at += delimiter.length;
            if (startsWith(body, at, "--\r\n".getBytes(StandardCharsets.ISO_8859_1))) {
                assertEquals(body.length, at + 4, "nothing after the close delimiter");
                return parts;
            }
            int headEnd = indexOf(body, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), at);
            String head = new String(body, at, headEnd - at, StandardCharsets.ISO_8859_1);
            String type = null;
            long[] range = null;
            for (String line : head.substring(2).split("\r\n")) { // the CRLF that ends the delimiter line
                int colon = line.indexOf(':');
                String name = line.substring(0, colon);
                String value = line.substring(colon + 1).trim();
                if (name.equalsIgnoreCase("Content-Type")) {
                    type = value;
                } else if (name.equalsIgnoreCase("Content-Range")) {
                    assertTrue(value.startsWith("bytes "), value);
                    String[] a = value.substring(6).split("[-/]");
                    range = new long[] {Long.parseLong(a[0]), Long.parseLong(a[1]), Long.parseLong(a[2])};
                }
            }
            assertTrue(range != null, "a Content-Range in " + head);
            at = headEnd + 4;
            int length = (int) (range[1] - range[0] + 1);
            parts.add(new Part(range[0], range[1], range[2], type, Arrays.copyOfRange(body, at, at + length)));
            at += length;
        }
    }

    /** Asserts that {@code body} carries exactly {@code ranges} ({first, last} pairs, in order) of {@code file}. */
    public static void assertRanges(byte[] file, String contentType, byte[] body, long[]... ranges) {
        List<Part> parts = parse(contentType, body);
        assertEquals(ranges.length, parts.size());
        for (int i = 0; i < ranges.length; i++) {
            Part p = parts.get(i);
            assertEquals(ranges[i][0], p.first(), "part " + i);
            assertEquals(ranges[i][1], p.last(), "part " + i);
            assertEquals(file.length, p.size());
            assertArrayEquals(Arrays.copyOfRange(file, (int) p.first(), (int) p.last() + 1), p.bytes(), "part " + i + "'s bytes");
        }
    }

    private static boolean startsWith(byte[] b, int at, byte[] prefix) {
        return at + prefix.length <= b.length && Arrays.equals(b, at, at + prefix.length, prefix, 0, prefix.length);
    }

    private static int indexOf(byte[] b, byte[] what, int from) {
        for (int i = from; i + what.length <= b.length; i++) {
            if (startsWith(b, i, what)) {
                return i;
            }
        }
        throw new AssertionError("no " + new String(what, StandardCharsets.ISO_8859_1).replace("\r\n", "CRLF") + " after " + from);
    }
}
