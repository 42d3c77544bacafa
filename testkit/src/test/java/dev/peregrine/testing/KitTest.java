package dev.peregrine.testing;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The kit's corpus loader, transport list, Await, and RawClient against its ScriptedServer. */
class KitTest {
    @Test
    void theCorporaLoadWithTheirIndexColumns() {
        Corpus.Entry plaintext = Corpus.valid().get(0);
        assertEquals("valid/get-plaintext.http", plaintext.file);
        assertEquals(List.of(200, "GET", "/plaintext", 0),
                List.of(plaintext.status(), plaintext.method(), plaintext.path(), plaintext.bodyLength()));
        assertTrue(Corpus.invalid().stream().allMatch(e -> e.status() >= 400 && e.bytes.length > 0));
        assertFalse(Corpus.validResponses().isEmpty());
        assertFalse(Corpus.invalidResponses().isEmpty());
    }

    @Test
    void everyTransportWithOneAndTwoLoops() {
        List<String> names = Transports.names().toList();
        assertEquals("nio", names.get(0));
        assertEquals(Transports.epollShipped(), names.contains("epoll"));
        assertEquals(2 * names.size(), Transports.withLoops().count());
        assertEquals(3 * names.size(), Transports.namesWith("a", "b", "c").count());
    }

    @Test
    void awaitReturnsOnceTheConditionHolds() {
        AtomicInteger polls = new AtomicInteger();
        Await.until("three polls", () -> polls.incrementAndGet() == 3);
        assertEquals(3, polls.get());
    }

    @Test
    void rawClientAndScriptedServerTalk() throws Exception {
        int port;
        try (ScriptedServer server = new ScriptedServer((c, n) -> {
            String head = c.readRequest();
            c.write("HTTP/1.1 200 OK\r\nContent-Length: " + c.lastBody.length + "\r\n\r\n" + new String(c.lastBody, StandardCharsets.ISO_8859_1));
            c.readRequest(); // the client's FIN, or (after /reset) a second request: the first answer was read
            if (head.startsWith("POST /reset")) {
                c.reset();
            } else {
                c.socket.close();
            }
        })) {
            try (RawClient c = new RawClient(server.port())) {
                assertEquals("hi", c.send("POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi").read().text());
                c.halfClose();
                assertTrue(c.closedByServer());
            }
            try (RawClient c = new RawClient(server.port())) {
                assertEquals(200, c.send("POST /reset HTTP/1.1\r\nContent-Length: 0\r\n\r\n").read().status);
                c.send("GET / HTTP/1.1\r\n\r\n");
                assertTrue(c.discardUntilClosed(), "a reset counts as closed");
            }
            assertEquals(2, server.accepted());
            port = server.port();
        }
        // Closing a listener another thread is accepting on may finish after close() returns (JDK 25's
        // NIO socket defers it until the acceptor wakes): wait for it, as every "stopped" check does.
        int closed = port;
        Await.until("nothing listens once the server is closed", () -> RawClient.refuses(closed));
    }
}
