package dev.peregrine.client;

import dev.peregrine.Transport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.peregrine.client.H2Frames.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTTP/2 client against servers scripted frame by frame over real sockets (NIO and epoll): GOAWAY
 * with streams above its last stream id, RST_STREAM of one stream among others, and a server that stops
 * reading (the client sends no more than the server's window, then its read timeout fails the call).
 */
class Http2ScriptedTest {
    interface Script {
        void play(Peer peer, int connection) throws IOException;
    }

    /** A loopback server running {@code script} on each accepted connection. */
    static final class ScriptServer implements AutoCloseable {
        final ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final AtomicInteger accepted = new AtomicInteger();
        final CompletableFuture<Throwable> problem = new CompletableFuture<>();

        ScriptServer(Script script) throws IOException {
            AcceptLoop.start("h2-script", listener::accept, s -> {
                int n = accepted.getAndIncrement();
                try (s) {
                    script.play(new Peer(s), n);
                } catch (IOException e) {
                    // the client went away
                } catch (RuntimeException | AssertionError e) {
                    problem.complete(e);
                }
            });
        }

        String url(String path) {
            return "http://127.0.0.1:" + listener.getLocalPort() + path;
        }

        @Override
        public void close() throws IOException {
            listener.close();
        }
    }

    private static HttpClient client(Transport t, Duration read) {
        return HttpClient.builder().transport(t).readTimeout(read).http2(Http2Mode.PRIOR_KNOWLEDGE).build();
    }

    private static ClientException failure(CompletableFuture<ClientResponse> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(20, TimeUnit.SECONDS));
        return assertInstanceOf(ClientException.class, e.getCause());
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void goAwayRetriesTheIdempotentStreamsAboveItsLastAndFailsTheOthers(Transport t) throws Exception {
        try (ScriptServer server = new ScriptServer((peer, n) -> {
            peer.handshake();
            if (n == 0) {
                int[] ids = peer.headers(3); // GET /a, GET /b, POST /c: streams 1, 3, 5
                assertEquals(1, ids[0]);
                peer.write(GOAWAY, 0, 0, concat(int32(1), int32(0))); // last stream 1, NO_ERROR
                peer.answer(1, "a");
                peer.socket.shutdownOutput();
                while (peer.read() != null) {
                    // the client closes once stream 1 is answered
                }
            } else {
                int[] ids = peer.headers(1);
                peer.answer(ids[0], "b again");
                while (peer.read() != null) {
                    // until the client closes
                }
            }
        }); HttpClient client = client(t, Duration.ofSeconds(10))) {
            CompletableFuture<ClientResponse> a = client.send(ClientRequest.get(server.url("/a")));
            CompletableFuture<ClientResponse> b = client.send(ClientRequest.get(server.url("/b")));
            CompletableFuture<ClientResponse> c = client.send(ClientRequest.builder("POST", server.url("/c")).body("x").build());
            assertEquals("a", a.get(20, TimeUnit.SECONDS).text());
            assertEquals("b again", b.get(20, TimeUnit.SECONDS).text());
            ClientException e = failure(c);
            assertEquals(ClientException.Phase.CLOSED, e.phase());
            assertTrue(e.getMessage().contains("GOAWAY"), e.getMessage());
            assertEquals(2, server.accepted.get(), "the retry went to a new connection");
            assertTrue(!server.problem.isDone(), () -> String.valueOf(server.problem.getNow(null)));
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void rstStreamFailsThatCallAlone(Transport t) throws Exception {
        try (ScriptServer server = new ScriptServer((peer, n) -> {
            peer.handshake();
            int[] ids = peer.headers(2);
            peer.write(RST_STREAM, 0, ids[0], int32(0x8)); // CANCEL
            peer.answer(ids[1], "fine");
            int[] more = peer.headers(1);
            peer.answer(more[0], "still fine");
            while (peer.read() != null) {
                // until the client closes
            }
        }); HttpClient client = client(t, Duration.ofSeconds(10))) {
            CompletableFuture<ClientResponse> first = client.send(ClientRequest.get(server.url("/1")));
            CompletableFuture<ClientResponse> second = client.send(ClientRequest.get(server.url("/2")));
            ClientException e = failure(first);
            assertEquals(ClientException.Phase.RESET, e.phase());
            assertTrue(e.getMessage().contains("CANCEL"), e.getMessage());
            assertEquals("fine", second.get(20, TimeUnit.SECONDS).text());
            assertEquals("still fine", client.get(server.url("/3")).text());
            assertEquals(1, server.accepted.get());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aServerThatStopsReadingGetsNoMoreThanItsWindow(Transport t) throws Exception {
        CompletableFuture<Integer> dataBytes = new CompletableFuture<>();
        try (ScriptServer server = new ScriptServer((peer, n) -> {
            int data = 0;
            try {
                peer.handshake();
                Frame f;
                while ((f = peer.read()) != null) { // never a WINDOW_UPDATE, never an answer
                    if (f.type() == DATA) {
                        data += f.payload().length;
                    }
                    if (f.type() == GOAWAY || f.type() == RST_STREAM) {
                        break;
                    }
                }
            } finally { // also when the client's close ends the read with a reset
                dataBytes.complete(data);
            }
        }); HttpClient client = client(t, Duration.ofMillis(500))) {
            byte[] body = new byte[4_000_000];
            ClientException e = failure(client.send(ClientRequest.builder("POST", server.url("/up")).body(body).build()));
            assertEquals(ClientException.Phase.READ, e.phase());
            assertEquals(65_535, dataBytes.get(20, TimeUnit.SECONDS), "exactly the initial window (RFC 9113 §6.9.2)");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aMalformedResponseFailsItsCallWithResponse(Transport t) throws Exception {
        try (ScriptServer server = new ScriptServer((peer, n) -> {
            peer.handshake();
            int[] ids = peer.headers(1);
            peer.write(HEADERS, END_HEADERS | END_STREAM, ids[0], literal("x-no-status", "1")); // no :status
            int[] more = peer.headers(1);
            peer.answer(more[0], "ok");
            while (peer.read() != null) {
                // until the client closes
            }
        }); HttpClient client = client(t, Duration.ofSeconds(10))) {
            assertEquals(ClientException.Phase.RESPONSE, failure(client.send(ClientRequest.get(server.url("/bad")))).phase());
            assertEquals("ok", client.get(server.url("/good")).text());
        }
    }
}
