package dev.peregrine.form;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link MultipartParser} fed every sample whole, split at every byte in two, and byte by byte. */
class MultipartParserTest {
    private static final String B = "XyZ-123";

    private static final String CURL = """
            --XyZ-123\r
            Content-Disposition: form-data; name="title"\r
            \r
            hello\r
            --XyZ-123\r
            Content-Disposition: form-data; name="doc"; filename="a.txt"\r
            Content-Type: text/plain\r
            \r
            line one\r
            line two\r
            --XyZ-12 not yet\r
            \r--\r
            \r
            --XyZ-123--\r
            """;

    private static final String PREAMBLE_EPILOGUE = "this is a preamble\r\n--XyZ-123  \t\r\n"
            + "content-disposition: form-data; name=empty\r\n\r\n"
            + "\r\n--XyZ-123\r\n"
            + "Content-Disposition: form-data; name=\"f\"; filename=\"x.bin\"; filename*=UTF-8''%C3%A9t%C3%A9.bin\r\n\r\n"
            + "\r\r\n\r\n-\r\n--\r\n--X\r\n--XyZ-12\r\n--XyZ-123--epilogue \r\n--XyZ-123\r\n ignored";

    /** Records the listener's calls as text. */
    static final class Recorder implements PartListener {
        final StringBuilder log = new StringBuilder();

        @Override
        public void onPartStart(PartHeaders h) {
            log.append("[").append(h.name()).append(h.isFile() ? "|" + h.filename() : "").append("|").append(h.contentType()).append("]");
        }

        @Override
        public void onPartData(ByteBuffer data) {
            byte[] b = new byte[data.remaining()];
            data.get(b);
            log.append(new String(b, StandardCharsets.ISO_8859_1));
        }

        @Override
        public void onPartEnd() {
            log.append("[end]");
        }
    }

    private static String parse(byte[] body, int... cuts) throws Exception {
        Recorder r = new Recorder();
        MultipartParser p = new MultipartParser(B, MultipartLimits.DEFAULTS, r);
        int from = 0;
        for (int cut : cuts) {
            p.feed(ByteBuffer.wrap(body, from, cut - from).slice());
            from = cut;
        }
        p.feed(ByteBuffer.wrap(body, from, body.length - from));
        p.finish();
        return r.log.toString();
    }

    private static void assertSameAtEverySplit(String sample, String expected) throws Exception {
        byte[] body = sample.getBytes(StandardCharsets.ISO_8859_1);
        assertEquals(expected, parse(body));
        for (int i = 0; i <= body.length; i++) {
            assertEquals(expected, parse(body, i), "split at " + i);
        }
        int[] every = new int[body.length];
        for (int i = 0; i < body.length; i++) {
            every[i] = i;
        }
        assertEquals(expected, parse(body, every), "byte by byte");
    }

    @Test
    void parsesWhatCurlSendsAtEverySplit() throws Exception {
        assertSameAtEverySplit(CURL, "[title|text/plain]hello[end][doc|a.txt|text/plain]line one\r\nline two\r\n--XyZ-12 not yet\r\n\r--\r\n[end]");
    }

    @Test
    void ignoresPreambleAndEpilogueAndKeepsNearDelimitersAsData() throws Exception {
        assertSameAtEverySplit(PREAMBLE_EPILOGUE,
                "[empty|text/plain][end][f|été.bin|text/plain]\r\r\n\r\n-\r\n--\r\n--X\r\n--XyZ-12[end]");
    }

    @Test
    void readsTheBoundaryFromTheContentType() {
        assertEquals("abc", MultipartParser.boundaryOf("multipart/form-data; boundary=abc"));
        assertEquals("a b'c", MultipartParser.boundaryOf("Multipart/Form-Data ; charset=x; BOUNDARY=\"a b'c\""));
        for (String bad : new String[] {"multipart/form-data", "multipart/form-data; boundary=", "text/plain; boundary=a",
                "multipart/form-data; boundary=a\"b", "multipart/form-data; boundary=" + "x".repeat(71)}) {
            assertThrows(BadFormException.class, () -> MultipartParser.boundaryOf(bad), bad);
        }
        assertThrows(BadFormException.class, () -> MultipartParser.boundaryOf(null));
    }

    private static Class<? extends RuntimeException> failure(String body, MultipartLimits limits) {
        byte[] bytes = body.getBytes(StandardCharsets.ISO_8859_1);
        Class<? extends RuntimeException> whole = failureOf(bytes, limits, bytes.length);
        for (int i = 1; i < bytes.length; i++) {
            assertEquals(whole, failureOf(bytes, limits, i), "split at " + i);
        }
        return whole;
    }

    private static Class<? extends RuntimeException> failureOf(byte[] bytes, MultipartLimits limits, int cut) {
        MultipartParser p = new MultipartParser(B, limits, new Recorder());
        try {
            p.feed(ByteBuffer.wrap(bytes, 0, cut));
            p.feed(ByteBuffer.wrap(bytes, cut, bytes.length - cut));
            p.finish();
            return null;
        } catch (RuntimeException e) {
            assertThrows(e.getClass(), p::finish); // dead after a failure
            return e.getClass();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void refusesBadBodiesWith400() {
        assertEquals(BadFormException.class, failure(CURL.substring(0, CURL.length() - 5), MultipartLimits.DEFAULTS)); // truncated
        assertEquals(BadFormException.class, failure(CURL.replace("XyZ-123", "Other"), MultipartLimits.DEFAULTS)); // wrong boundary
        assertEquals(BadFormException.class, failure("", MultipartLimits.DEFAULTS));
        assertEquals(BadFormException.class, failure("--XyZ-123\r\n\r\nx\r\n--XyZ-123--", MultipartLimits.DEFAULTS)); // no disposition
        assertEquals(BadFormException.class, failure("--XyZ-123\r\nContent-Disposition: attachment; name=a\r\n\r\nx\r\n--XyZ-123--",
                MultipartLimits.DEFAULTS));
        assertEquals(BadFormException.class, failure("--XyZ-123x\r\nContent-Disposition: form-data; name=a\r\n\r\n\r\n--XyZ-123--",
                MultipartLimits.DEFAULTS));
        assertEquals(BadFormException.class, failure("--XyZ-123\r\nContent-Disposition: form-data; name=a\n\r\n\r\n--XyZ-123--",
                MultipartLimits.DEFAULTS)); // bare LF
        assertEquals(BadFormException.class, failure("--XyZ-123\r\nContent-Disposition: form-data; name=a; filename*=KOI8-R''x"
                + "\r\n\r\n\r\n--XyZ-123--", MultipartLimits.DEFAULTS));
        assertEquals(BadFormException.class, failure("--XyZ-123-\r\n", MultipartLimits.DEFAULTS));
    }

    @Test
    void refusesWhatPassesALimitWith413() {
        assertEquals(FormLimitException.class, failure(CURL, MultipartLimits.DEFAULTS.withMaxParts(1)));
        assertEquals(FormLimitException.class, failure(CURL, MultipartLimits.DEFAULTS.withMaxPartHeaderSize(60)));
        assertEquals(FormLimitException.class, failure(CURL, MultipartLimits.DEFAULTS.withMaxFieldSize(4)));
        assertEquals(FormLimitException.class, failure(CURL, MultipartLimits.DEFAULTS.withMaxFileSize(42)));
        assertNull(failure(CURL, MultipartLimits.DEFAULTS.withMaxParts(2).withMaxFieldSize(5).withMaxFileSize(43)));
    }

    @Test
    void spoolsLargeFilesAndDeletesThemOnCloseAndOnFailure(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        byte[] file = new byte[100_000];
        for (int i = 0; i < file.length; i++) {
            file[i] = (byte) (i * 31 + (i >> 7));
        }
        byte[] body = body(file);
        MultipartLimits limits = MultipartLimits.DEFAULTS.withSpoolDir(dir).withSpoolThreshold(1000);
        try (MultipartForm form = MultipartForm.read(new ByteArrayInputStream(body), "multipart/form-data; boundary=" + B, limits)) {
            assertEquals(List.of("small", "big"), form.parts().stream().map(FormPart::name).toList());
            assertEquals("tiny", form.part("small").text());
            FormPart big = form.part("big");
            assertNotNull(big.file());
            assertEquals(file.length, big.size());
            assertArrayEquals(file, big.bytes());
            assertEquals(1, count(dir));
        }
        assertEquals(0, count(dir));
        // truncated, over a limit, or the connection lost: nothing left behind
        byte[] truncated = java.util.Arrays.copyOf(body, body.length - 10);
        assertThrows(BadFormException.class, () -> MultipartForm.read(new ByteArrayInputStream(truncated),
                "multipart/form-data; boundary=" + B, limits));
        assertEquals(0, count(dir));
        assertThrows(FormLimitException.class, () -> MultipartForm.read(new ByteArrayInputStream(body),
                "multipart/form-data; boundary=" + B, limits.withMaxFileSize(50_000)));
        assertEquals(0, count(dir));
        InputStream lost = new InputStream() {
            int at;

            @Override
            public int read() throws IOException {
                if (at == 60_000) {
                    throw new IOException("connection closed");
                }
                return body[at++] & 0xFF;
            }
        };
        assertThrows(IOException.class, () -> MultipartForm.read(lost, "multipart/form-data; boundary=" + B, limits));
        assertEquals(0, count(dir));
    }

    private static byte[] body(byte[] file) {
        byte[] head = ("--" + B + "\r\nContent-Disposition: form-data; name=small\r\n\r\ntiny\r\n--" + B
                + "\r\nContent-Disposition: form-data; name=big; filename=big.bin\r\nContent-Type: application/octet-stream\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        byte[] tail = ("\r\n--" + B + "--\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] body = new byte[head.length + file.length + tail.length];
        System.arraycopy(head, 0, body, 0, head.length);
        System.arraycopy(file, 0, body, head.length, file.length);
        System.arraycopy(tail, 0, body, head.length + file.length, tail.length);
        return body;
    }

    private static long count(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.count();
        }
    }

    @Test
    void partHeadersDecodeQuotedStringsAndExtValues() {
        byte[] quoted = bytes("Content-Disposition: form-data; name=\"a\\\"b\"");
        assertEquals("a\"b", PartHeaders.parse(quoted, quoted.length).name());
        assertEquals("€ rates", PartHeaders.extValue("UTF-8'en'%E2%82%AC%20rates"));
        assertEquals("é", PartHeaders.extValue("iso-8859-1''%E9"));
        assertThrows(BadFormException.class, () -> PartHeaders.extValue("UTF-8'%E2"));
        assertThrows(BadFormException.class, () -> PartHeaders.extValue("UTF-8''a b"));
        byte[] emptyName = bytes("Content-Disposition: form-data; name=x; filename=\"\"");
        assertTrue(PartHeaders.parse(emptyName, emptyName.length).isFile());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
