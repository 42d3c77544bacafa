package dev.peregrine.hardening;

import dev.peregrine.Server;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Response headers are safe however a handler builds them, a 1xx cannot be sent as a final status,
 * and every error answer of the server's own has the same short text body.
 */
class ResponseSafetyTest {
    private Server server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static String refused(Runnable call) {
        return assertThrows(IllegalArgumentException.class, call::run).getClass().getSimpleName();
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void unsafeHeadersAreRefusedAtTheCallAndWhatIsEncodedIsWhatWasChecked(String transport) throws Exception {
        server = Server.builder().host("127.0.0.1").port(0).transport(transport).threads(1)
                .get("/h", (req, res) -> {
                    refused(() -> res.header("X-A", "a\r\nInjected: yes"));
                    refused(() -> res.header("X-A", "a\nb"));
                    refused(() -> res.header("X-A", "a\u0000b"));
                    refused(() -> res.header("X-A", "caf\u00e9"));
                    refused(() -> res.header("X-A", "snow \u2603"));
                    refused(() -> res.header("Server", "other"));
                    refused(() -> res.header("Date", "today"));
                    refused(() -> res.header("Content-Length", "1"));
                    refused(() -> res.status(100));
                    refused(() -> res.status(103));
                    StringBuilder value = new StringBuilder("safe");
                    res.header("X-B", value);
                    value.setLength(0);
                    value.append("x\r\nInjected: yes"); // changed after the check: must not reach the wire
                    res.header("Content-Type", "text/first");
                    res.contentType("text/second");
                    res.text("ok");
                })
                .get("/next", (req, res) -> res.text("next"))
                .start();
        try (RawClient w = new RawClient(server.port())) {
            w.send("GET /h HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\n\r\n");
            RawResponse r = w.read();
            assertEquals(200, r.status);
            assertEquals("safe", r.header("X-B"));
            assertFalse(r.head.contains("Injected"), r.head);
            assertEquals(1, r.head.split("(?i)\r\ncontent-type:", -1).length - 1, r.head);
            assertEquals(1, r.head.split("(?i)\r\nserver:", -1).length - 1, r.head);
            assertEquals("next", w.read().text(), "the pipelined response after it is in step");
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void everyErrorAnswerOfTheServersOwnHasTheSameShortBody(String transport) throws Exception {
        server = Server.builder().host("127.0.0.1").port(0).transport(transport).threads(1)
                .maxBodySize(10).asyncTimeout(Duration.ofMillis(100))
                .get("/ok", (req, res) -> res.text("ok"))
                .get("/throws", (req, res) -> {
                    throw new IllegalStateException("expected by the test");
                })
                .get("/never", (req, res) -> res.async())
                .get("/users/{id}", (req, res) -> res.text("user"))
                .start();
        Map<String, Integer> requests = new java.util.LinkedHashMap<>();
        requests.put("GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n", 404);
        requests.put("DELETE /ok HTTP/1.1\r\nHost: x\r\n\r\n", 405);
        requests.put("GET /users/%2F HTTP/1.1\r\nHost: x\r\n\r\n", 400);
        requests.put("GET /throws HTTP/1.1\r\nHost: x\r\n\r\n", 500);
        requests.put("GET /never HTTP/1.1\r\nHost: x\r\n\r\n", 503);
        requests.put("POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n", 413);
        requests.put("GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505);
        requests.put("GET /ok HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n", 400);
        requests.put("GET /ok HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501);
        for (Map.Entry<String, Integer> e : requests.entrySet()) {
            try (RawClient w = new RawClient(server.port())) {
                w.send(e.getKey());
                RawResponse r = w.read();
                int status = e.getValue();
                assertEquals(status, r.status, e.getKey());
                assertEquals("text/plain; charset=utf-8", r.header("Content-Type"), e.getKey());
                assertTrue(r.text().matches(status + " [A-Z][A-Za-z -]+\n"), r.text());
            }
        }
    }
}
