package dev.peregrine.e2e;

import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many connections at once and clients that vanish mid-request: afterwards the server still answers,
 * every connection is accounted closed and every pooled buffer is back.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class LoadAndResetTest extends ServerTestBase {
    private static final int CONNECTIONS = 2000;

    LoadAndResetTest(ServerFactory factory) {
        super(factory);
    }

    @Test
    void twoThousandConcurrentConnectionsEachDoingARequest() throws IOException {
        List<Socket> sockets = new ArrayList<>(CONNECTIONS);
        try {
            for (int i = 0; i < CONNECTIONS; i++) {
                Socket s = connect();
                sockets.add(s);
                s.getOutputStream().write(RawClient.bytes("GET /users/" + i + "/posts/c HTTP/1.1\r\nHost: x\r\n\r\n"));
            }
            for (int i = 0; i < CONNECTIONS; i++) {
                assertEquals("id=" + i + " slug=c", RawResponse.read(sockets.get(i).getInputStream()).text());
            }
            Await.until(() -> server.metrics().open == CONNECTIONS, () -> "all open at once: " + server.metrics());
            // 2000 idle keep-alive connections own no buffer at all
            Await.until(() -> server.metrics().lentBuffers == 0, () -> "idle connections hold buffers: " + server.metrics());
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
        }
        assertServerHealthyAndIdle();
    }

    /** One way of leaving: what the client sends before it resets the connection. */
    private void resetAfter(String partial) throws IOException {
        try (Socket s = connect()) {
            s.getOutputStream().write(RawClient.bytes(partial));
            // The server holds the partial request (or unsent responses) in a lent buffer: now reset.
            Await.until(() -> server.metrics().lentBuffers > 0, () -> "server never buffered: " + partial.substring(0, 20));
            s.setSoLinger(true, 0);
        }
    }

    @Test
    void clientsResettingMidRequestLeaveNothingBehind() throws IOException {
        String host = "Host: x\r\n";
        String[] partials = {
            "GET /plaintext HTTP/1.1\r\n" + host + "X-Half: ",
            "GET /pla",
            "POST /echo HTTP/1.1\r\n" + host + "Content-Length: 100\r\n\r\nhalf of the body",
            "POST /echo HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n10\r\n0123456789",
            "POST /echo HTTP/1.1\r\n" + host + "Expect: 100-continue\r\nContent-Length: 100000\r\n\r\n" + "x".repeat(50_000),
            "GET /plaintext HTTP/1.1\r\n" + host + "\r\nGET /json HTTP/1.1\r\n" + host,
            // unread responses: 16 MiB does not fit in the socket buffers, so output stays pending
            ("GET /big HTTP/1.1\r\n" + host + "\r\n").repeat(8),
        };
        for (int round = 0; round < 10; round++) {
            for (String p : partials) {
                resetAfter(p);
            }
        }
        assertServerHealthyAndIdle();
    }

    private void assertServerHealthyAndIdle() throws IOException {
        try (Socket s = connect()) {
            s.getOutputStream().write(RawClient.bytes("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n"));
            assertEquals("Hello, World!", RawResponse.read(s.getInputStream()).text());
        }
        Await.until(() -> server.metrics().open == 0, () -> "connections left open: " + server.metrics());
        awaitNoLentBuffers(server);
    }

    @Test
    void aDeclaredBodyReservesNoMemoryBeforeItArrives() throws IOException {
        // Heads announcing 8 MiB bodies that never come must not make the server reserve 8 MiB each.
        int clients = 32;
        List<Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < clients; i++) {
                Socket s = connect();
                sockets.add(s);
                s.getOutputStream().write(RawClient.bytes("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 8000000\r\n\r\nfirst bytes"));
            }
            Await.until(() -> server.metrics().lentBuffers == clients, () -> "not all buffered: " + server.metrics());
            long lent = server.metrics().lentBytes;
            assertTrue(lent <= clients * 64L * 1024, "lent " + lent + " bytes for " + clients + " bodies of 11 bytes so far");
            // and the bodies still complete
            Socket first = sockets.get(0);
            byte[] rest = new byte[8_000_000 - 11];
            java.util.Arrays.fill(rest, (byte) 'r');
            first.getOutputStream().write(rest);
            RawResponse r = RawResponse.read(first.getInputStream());
            assertEquals(8_000_000, r.body.length);
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
        }
        assertServerHealthyAndIdle();
    }
}
