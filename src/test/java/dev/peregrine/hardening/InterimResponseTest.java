package dev.peregrine.hardening;

import dev.peregrine.Execution;
import dev.peregrine.Server;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Interim responses (103 Early Hints) have their own call: they go out before the final response,
 * inline and off the loop, never to an HTTP/1.0 client, and pipelined responses stay in step.
 */
class InterimResponseTest {
    private static final String HINTS = "HTTP/1.1 103 Early Hints\r\nLink: </site.css>; rel=preload\r\n\r\n";
    private Server server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void earlyHintsPrecedeTheFinalResponse(String transport) throws Exception {
        server = Server.builder().host("127.0.0.1").port(0).transport(transport).threads(1)
                .get("/inline", (req, res) -> res.interim(103, "Link", "</site.css>; rel=preload").text("inline"))
                .get("/blocking", Execution.BLOCKING, (req, res) -> res.interim(103, "Link", "</site.css>; rel=preload").text("blocking"))
                .get("/misuse", (req, res) -> {
                    assertThrows(IllegalArgumentException.class, () -> res.interim(200));
                    assertThrows(IllegalArgumentException.class, () -> res.interim(100));
                    assertThrows(IllegalArgumentException.class, () -> res.interim(103, "Link"));
                    assertThrows(IllegalArgumentException.class, () -> res.interim(103, "Link", "a\r\nb"));
                    res.text("refused");
                })
                .start();
        try (RawClient w = new RawClient(server.port())) {
            w.send("GET /inline HTTP/1.1\r\nHost: x\r\n\r\nGET /blocking HTTP/1.1\r\nHost: x\r\n\r\nGET /misuse HTTP/1.1\r\nHost: x\r\n\r\n");
            assertEquals(HINTS, new String(w.readExactly(HINTS.length()), StandardCharsets.ISO_8859_1));
            assertEquals("inline", w.read().text());
            assertEquals(HINTS, new String(w.readExactly(HINTS.length()), StandardCharsets.ISO_8859_1));
            assertEquals("blocking", w.read().text());
            assertEquals("refused", w.read().text());
        }
        try (RawClient w = new RawClient(server.port())) {
            w.send("GET /inline HTTP/1.0\r\n\r\n");
            RawResponse r = w.read();
            assertEquals(200, r.status, "no 1xx for HTTP/1.0: the first thing read is the final response");
            assertEquals("inline", r.text());
        }
        // curl reads past the 103 to the final response.
        Process curl = new ProcessBuilder("curl", "-sS", "http://127.0.0.1:" + server.port() + "/blocking")
                .redirectErrorStream(true).start();
        String out = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(curl.waitFor(30, TimeUnit.SECONDS));
        assertEquals("blocking", out);
    }
}
