package dev.peregrine.client;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.testing.ScriptedServer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hostile servers against the client (one loop): a head that never ends, a body larger than allowed,
 * a response dribbled a byte at a time. Each call fails with its phase, and a bystander call to a
 * sound server on the same loop is answered meanwhile.
 */
class ClientHostileTest {
    private static ClientException failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
        return assertInstanceOf(ClientException.class, e.getCause());
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.client.HttpClientTest#transports")
    void hostileServersFailTheirCallsAndABystanderOnTheLoopIsServed(Transport t) throws Exception {
        CountDownLatch stop = new CountDownLatch(1);
        try (Server sound = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t)
                .get("/ok", (req, res) -> res.text("ok")).start();
             ScriptedServer endlessHead = new ScriptedServer((c, n) -> {
                 c.readRequest();
                 c.write("HTTP/1.1 200 OK\r\n");
                 for (int i = 0; i < 100_000; i++) {
                     c.write("X-Filler-" + i + ": " + "f".repeat(100) + "\r\n"); // until the client closes
                 }
             });
             ScriptedServer hugeBody = new ScriptedServer((c, n) -> {
                 c.readRequest();
                 c.write("HTTP/1.1 200 OK\r\nContent-Length: 100000000000\r\n\r\n");
                 byte[] junk = new byte[64 * 1024];
                 for (int i = 0; i < 100_000; i++) {
                     c.socket.getOutputStream().write(junk);
                 }
             });
             ScriptedServer dribble = new ScriptedServer((c, n) -> {
                 c.readRequest();
                 String r = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + "d".repeat(1000);
                 try {
                     for (int i = 0; i < r.length(); i++) {
                         c.write(r.substring(i, i + 1));
                         if (stop.await(50, TimeUnit.MILLISECONDS)) { // a slow server: a byte every 50 ms
                             return;
                         }
                     }
                 } catch (InterruptedException e) {
                     Thread.currentThread().interrupt();
                 }
             });
             HttpClient client = HttpClient.builder().transport(t).threads(1).maxResponseBodySize(1 << 20)
                     .totalTimeout(Duration.ofSeconds(2)).build()) {
            CompletableFuture<ClientResponse> head = client.send(ClientRequest.get(endlessHead.url("/h")));
            CompletableFuture<ClientResponse> body = client.send(ClientRequest.get(hugeBody.url("/b")));
            CompletableFuture<ClientResponse> slow = client.send(ClientRequest.get(dribble.url("/d")));
            long start = System.nanoTime();
            assertEquals("ok", client.get("http://127.0.0.1:" + sound.port() + "/ok").text());
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(millis < 1_000, "a bystander among hostile servers waited " + millis + " ms");
            assertEquals(ClientException.Phase.TOO_LARGE, failure(head).phase(), "a head past the limit");
            assertEquals(ClientException.Phase.TOO_LARGE, failure(body).phase(), "a body past maxResponseBodySize");
            assertEquals(ClientException.Phase.TOTAL, failure(slow).phase(), "a dribble is bounded by the total timeout");
            assertEquals("ok", client.get("http://127.0.0.1:" + sound.port() + "/ok").text(), "the client still serves");
        } finally {
            stop.countDown();
        }
    }
}
