package dev.peregrine.loop;

import dev.peregrine.Server;
import dev.peregrine.route.Router;
import dev.peregrine.testing.Corpus;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every corpus request, and all valid ones pipelined in one stream, through the production
 * {@link Connection} (not a test copy of its framing) split at every byte: the responses must be
 * those of the unsplit delivery, but for the Date line and {@code 100 Continue}.
 */
class ConnectionSplitTest {
    private static final Router ROUTER = Router.builder()
            .add("GET", "/plaintext", (req, res) -> res.text("Hello, World!"))
            .add("POST", "/echo", (req, res) -> res.body(req.body()))
            .add("GET", "/users/{id}", (req, res) -> res.text(req.pathParam("id")))
            .build();
    private final LoopContext loop = dev.peregrine.TestConfigs.serverLoop(dev.peregrine.TestConfigs.of(Server.builder()), ROUTER);

    private String deliver(byte[] bytes, int split) {
        ConnectionHarness h = new ConnectionHarness(loop);
        if (split > 0) {
            h.io.feed(Arrays.copyOfRange(bytes, 0, split));
            h.run();
        }
        if (!h.closed()) {
            h.io.feed(Arrays.copyOfRange(bytes, split, bytes.length));
            h.run();
        }
        if (!h.closed()) {
            h.io.endOfInput();
            h.run();
        }
        String out = h.written();
        h.connection.close();
        assertEquals(0, loop.pool().lentCount(), "every buffer is back");
        return out.replace("HTTP/1.1 100 Continue\r\n\r\n", "").replaceAll("\r\nDate: [^\r]*", "");
    }

    private void everySplit(String name, byte[] bytes) {
        String whole = deliver(bytes, 0);
        for (int k = 1; k < bytes.length; k++) {
            assertEquals(whole, deliver(bytes, k), name + " split at " + k);
        }
    }

    @Test
    void everyCorpusRequestAtEverySplitPoint() {
        for (List<Corpus.Entry> kind : List.of(Corpus.valid(), Corpus.invalid())) {
            for (Corpus.Entry e : kind) {
                everySplit(e.file, e.bytes);
            }
        }
    }

    @Test
    void theValidCorpusPipelinedAtEverySplitPoint() {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (Corpus.Entry e : Corpus.valid()) {
            if (!new String(e.bytes, java.nio.charset.StandardCharsets.ISO_8859_1).contains("Connection: close")
                    && !new String(e.bytes, java.nio.charset.StandardCharsets.ISO_8859_1).contains("HTTP/1.0")) {
                all.writeBytes(e.bytes);
            }
        }
        everySplit("pipeline", all.toByteArray());
    }
}
