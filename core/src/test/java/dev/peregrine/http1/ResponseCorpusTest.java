package dev.peregrine.http1;

import dev.peregrine.testing.Corpus;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

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
        return arguments(Corpus.validResponses());
    }

    static Stream<Arguments> invalid() {
        return arguments(Corpus.invalidResponses());
    }

    /** file, the index line's columns, the bytes. */
    private static Stream<Arguments> arguments(List<Corpus.Entry> entries) {
        return entries.stream().map(e -> Arguments.of(e.file, e.columns().toArray(new String[0]), e.bytes));
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
}
