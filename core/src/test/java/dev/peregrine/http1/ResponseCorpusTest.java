package dev.peregrine.http1;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The response corpus ({@code src/test/resources/corpus/responses}: raw responses as nginx, Apache, Go,
 * Python and misbehaving peers send them, with {@code index.txt} saying what a client must make of
 * each) through the production {@link ResponseReader}, whole and split at every byte, as the client
 * connection feeds it: keep from the response's first byte on NEED_MORE, skip interim responses, and
 * at the end of the bytes tell the reader the peer closed ({@link ResponseReader#atEndOfInput}).
 */
class ResponseCorpusTest {
    private static final int MAX_HEAD = 16 * 1024;
    private static final long MAX_BODY = 1024 * 1024;

    static Stream<Arguments> valid() {
        return load("valid/");
    }

    static Stream<Arguments> invalid() {
        return load("invalid/");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("valid")
    void validResponsesGiveTheirStatusAndBodyAtEverySplit(String file, String[] expect, byte[] wire) {
        boolean head = expect[0].equals("HEAD");
        String want = expect[1] + " body=" + expect[2] + " interim=" + expect[3];
        for (int k = 0; k < wire.length; k++) {
            assertEquals(want, read(wire, k, head), file + " split at " + k);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalid")
    void invalidResponsesAreRefusedWithTheirReasonAtEverySplit(String file, String[] expect, byte[] wire) {
        boolean head = expect[0].equals("HEAD");
        String why = String.join(" ", java.util.Arrays.copyOfRange(expect, 1, expect.length));
        for (int k = 0; k < wire.length; k++) {
            String got = read(wire, k, head);
            assertTrue(got.startsWith("error: ") && got.contains(why), file + " split at " + k + ": " + got);
        }
    }

    /** {@code wire} in two pieces split at {@code k} (0: whole); "status body=N interim=M" or "error: why". */
    private static String read(byte[] wire, int k, boolean head) {
        ResponseReader r = new ResponseReader(MAX_HEAD, MAX_BODY);
        r.expect(head);
        ResponseFeeding.Outcome o = ResponseFeeding.feed(r, wire, k, true); // the peer closes after the last byte
        return o.error() ? "error: " + r.error() : o.complete() ? done(r) : "incomplete";
    }

    private static String done(ResponseReader r) {
        return r.status() + " body=" + r.bodyLength() + " interim=" + r.interimResponses();
    }

    private static Stream<Arguments> load(String kind) {
        List<Arguments> out = new ArrayList<>();
        try (BufferedReader index = new BufferedReader(new InputStreamReader(open("index.txt"), StandardCharsets.UTF_8))) {
            String line;
            while ((line = index.readLine()) != null) {
                if (line.isBlank() || line.startsWith("#") || !line.startsWith(kind)) {
                    continue;
                }
                String[] parts = line.trim().split(" ");
                String[] expect = java.util.Arrays.copyOfRange(parts, 1, parts.length);
                try (InputStream in = open(parts[0])) {
                    out.add(Arguments.of(parts[0], expect, in.readAllBytes()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.stream();
    }

    private static InputStream open(String name) {
        InputStream in = ResponseCorpusTest.class.getClassLoader().getResourceAsStream("corpus/responses/" + name);
        if (in == null) {
            throw new IllegalStateException("missing corpus/responses/" + name);
        }
        return in;
    }
}
