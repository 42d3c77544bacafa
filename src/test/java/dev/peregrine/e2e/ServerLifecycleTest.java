package dev.peregrine.e2e;

import dev.peregrine.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Server#close()}: finishes responses being written, closes idle connections, frees the port and the buffers. */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class ServerLifecycleTest {
    private final ServerFactory factory;

    ServerLifecycleTest(ServerFactory factory) {
        this.factory = factory;
    }

    @Test
    void closeFinishesResponsesBeingWrittenAndClosesIdleConnections() throws Exception {
        // A long grace: a loaded machine may take a while to push 8 MiB through a 4 KiB receive window.
        Server server = factory.start(b -> b.maxPendingOutput(64 << 20).shutdownGrace(java.time.Duration.ofSeconds(60)));
        try (Socket busy = new Socket(); Socket idle = Wire.connect(server.port())) {
            busy.setReceiveBufferSize(4096);
            busy.setSoTimeout(Wire.READ_TIMEOUT_MS);
            busy.connect(new InetSocketAddress("127.0.0.1", server.port()));
            idle.getOutputStream().write(Wire.bytes("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n"));
            assertEquals(200, Wire.read(idle.getInputStream()).status);
            busy.getOutputStream().write(Wire.bytes("GET /big HTTP/1.1\r\nHost: x\r\n\r\n".repeat(4)));
            Await.until(() -> server.metrics().lentBuffers > 0, () -> "responses not pending: " + server.metrics());

            CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
            assertEquals(-1, idle.getInputStream().read(), "an idle connection is closed by the server");
            InputStream in = busy.getInputStream();
            for (int i = 0; i < 4; i++) {
                assertArrayEquals(TestRoutes.BIG, Wire.read(in).body, "response " + i + " finished during close");
            }
            assertEquals(-1, in.read());
            busy.close();
            closing.get(20, TimeUnit.SECONDS);
        } finally {
            server.close();
        }
        assertEquals(0, server.metrics().lentBuffers);
        assertEquals(0, server.metrics().open);
        org.junit.jupiter.api.Assertions.assertThrows(java.net.ConnectException.class, () -> Wire.connect(server.port()).close(),
                "a closed server accepts nothing");
        try (Server again = factory.start(b -> b.port(server.port()))) {
            assertEquals(server.port(), again.port(), "the port is free again at once");
            try (Socket s = Wire.connect(again.port())) {
                s.getOutputStream().write(Wire.bytes("GET /json HTTP/1.1\r\nHost: x\r\n\r\n"));
                assertTrue(Wire.read(s.getInputStream()).text().contains("Hello"));
            }
        }
    }

    @Test
    void withoutReusePortOneLoopAcceptsForAll() throws Exception {
        try (Server server = factory.start(b -> b.reusePort(false))) {
            java.util.List<Socket> sockets = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < 64; i++) {
                    Socket s = Wire.connect(server.port());
                    sockets.add(s);
                    s.getOutputStream().write(Wire.bytes("GET /users/" + i + "/posts/r HTTP/1.1\r\nHost: x\r\n\r\n"));
                }
                for (int i = 0; i < 64; i++) {
                    assertEquals("id=" + i + " slug=r", Wire.read(sockets.get(i).getInputStream()).text());
                }
            } finally {
                for (Socket s : sockets) {
                    s.close();
                }
            }
            Await.until(() -> server.metrics().open == 0, () -> "still open: " + server.metrics());
            assertEquals(64, server.metrics().accepted);
        }
    }
}
