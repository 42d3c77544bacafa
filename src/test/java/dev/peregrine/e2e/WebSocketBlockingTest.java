package dev.peregrine.e2e;

import dev.peregrine.Execution;
import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.websocket.Payload;
import dev.peregrine.websocket.SendCallback;
import dev.peregrine.WebSocketHandler;
import dev.peregrine.WebSocketOptions;
import dev.peregrine.websocket.WebSocketSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A WebSocket route with {@code execution(BLOCKING)} over real sockets on every transport, one loop
 * (so the bystander shares the blocked connection's loop): callbacks run off the loop (a virtual
 * thread on JDK 21+, the blocking pool on 17) and may block on a send's future; a bystander on the
 * same loop is answered while a callback is held; messages keep their order and callbacks never
 * overlap; a slow handler makes the server stop reading from its client (readPauses) and then catch
 * up with nothing lost; a close while a callback runs is answered at once on the loop, and onClose
 * comes after the callback; a callback that throws closes with 1011.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.testing.Transports#names")
class WebSocketBlockingTest {
    private final String transport;
    private Server server;
    private final List<String> events = new CopyOnWriteArrayList<>();
    /** Every text message a callback got, in the order the callbacks ran. */
    private final List<String> texts = new CopyOnWriteArrayList<>();
    private final AtomicReference<Thread> callbackThread = new AtomicReference<>();
    private final AtomicInteger inCallback = new AtomicInteger();
    private final AtomicInteger overlaps = new AtomicInteger();
    private volatile CountDownLatch entered = new CountDownLatch(1);
    private volatile CountDownLatch release = new CountDownLatch(1);

    WebSocketBlockingTest(String transport) {
        this.transport = transport;
    }

    @BeforeEach
    void start() {
        WebSocketHandler blocking = new WebSocketHandler() {
            @Override
            public void onOpen(WebSocketSession s) {
                callbackThread.set(Thread.currentThread());
            }

            @Override
            public void onText(WebSocketSession s, Payload text) {
                if (inCallback.incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                }
                try {
                    String t = text.text();
                    texts.add(t);
                    if (t.equals("hold")) {
                        events.add("hold");
                        entered.countDown();
                        await(release);
                        CompletableFuture<Void> sent = new CompletableFuture<>();
                        s.sendText("after hold", SendCallback.of(sent));
                        try {
                            sent.get(30, TimeUnit.SECONDS);
                            events.add("sent");
                        } catch (Exception e) {
                            events.add("send failed");
                        }
                    } else if (t.equals("throw")) {
                        throw new IllegalStateException("a handler's bug (expected by the test)");
                    } else {
                        CompletableFuture<Void> sent = new CompletableFuture<>();
                        s.sendText(t, SendCallback.of(sent)); // a blocking wait for the loop to take it
                        try {
                            sent.get(30, TimeUnit.SECONDS);
                        } catch (java.util.concurrent.ExecutionException closed) {
                            events.add("unsent " + t); // the session closed before this reply
                        }
                    }
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                } finally {
                    inCallback.decrementAndGet();
                }
            }

            @Override
            public void onClose(WebSocketSession s, int code, String reason) {
                events.add("close " + code);
            }
        };
        WebSocketHandler echo = new WebSocketHandler() {
            @Override
            public void onText(WebSocketSession s, Payload text) {
                s.send(text);
            }
        };
        server = Server.builder().host("127.0.0.1").port(0).transport(transport).threads(1)
                .shutdownGrace(Duration.ofSeconds(2))
                .websocket("/ws/blocking", WebSocketOptions.DEFAULTS.execution(Execution.BLOCKING).compression(false), blocking)
                .websocket("/ws/echo", echo)
                .start();
    }

    @AfterEach
    void stop() {
        try {
            ServerTestBase.awaitNoLentBuffers(server);
        } finally {
            server.close();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch not released within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private WsRawClient ws(String path) throws IOException {
        return WsRawClient.open(server.port(), path, "");
    }

    @Test
    void callbacksRunOffTheLoopOnAVirtualThreadWhereTheJdkHasThem() throws Exception {
        try (WsRawClient c = ws("/ws/blocking")) {
            c.sendText("hi");
            assertEquals("hi", c.read().text());
        }
        Thread t = callbackThread.get();
        if (Runtime.version().feature() >= 21) {
            assertTrue((Boolean) Thread.class.getMethod("isVirtual").invoke(t), t.toString());
        } else {
            assertTrue(t.getName().startsWith("peregrine-blocking-"), t.getName());
        }
    }

    @Test
    void aBystanderOnTheSameLoopIsAnsweredWhileACallbackBlocks() throws Exception {
        try (WsRawClient blocked = ws("/ws/blocking"); WsRawClient bystander = ws("/ws/echo")) {
            blocked.sendText("hold");
            assertTrue(entered.await(30, TimeUnit.SECONDS), "the callback did not start");
            long t0 = System.nanoTime();
            bystander.sendText("still here");
            assertEquals("still here", bystander.read().text());
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms < 2_000, "the bystander waited " + ms + " ms behind a blocked callback"); // generous: the loop is free
            release.countDown();
            assertEquals("after hold", blocked.read().text());
        }
    }

    @Test
    void messagesKeepTheirOrderAndCallbacksNeverOverlap() throws Exception {
        WebSocketClientsTest.Collector got = new WebSocketClientsTest.Collector();
        WebSocket ws = java.net.http.HttpClient.newHttpClient().newWebSocketBuilder()
                .buildAsync(URI.create("ws://127.0.0.1:" + server.port() + "/ws/blocking"), got).get(30, TimeUnit.SECONDS);
        int n = 500;
        for (int i = 0; i < n; i++) {
            ws.sendText("m" + i, true).get(30, TimeUnit.SECONDS);
        }
        for (int i = 0; i < n; i++) {
            assertEquals("m" + i, got.next());
        }
        ws.sendClose(WebSocket.NORMAL_CLOSURE, "").get(30, TimeUnit.SECONDS);
        assertEquals(1000, got.closed.get(30, TimeUnit.SECONDS));
        assertEquals(0, overlaps.get());
        Await.until("onClose after the messages", () -> events.contains("close 1000"));
    }

    @Test
    void aSlowHandlerStopsReadingFromItsClientThenCatchesUpWithNothingLost() throws Exception {
        int n = 600;
        byte[] pad = new byte[1000];
        java.util.Arrays.fill(pad, (byte) 'x');
        String body = new String(pad, StandardCharsets.US_ASCII);
        long pausesBefore = server.metrics().readPauses;
        try (WsRawClient c = ws("/ws/blocking")) {
            c.sendText("hold");
            assertTrue(entered.await(30, TimeUnit.SECONDS));
            // 600 KB behind a held callback: the queue fills (16 events), the connection holds 64 KiB
            // more and stops reading; the rest waits in the kernel's buffers (or in this writer).
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (int i = 0; i < n; i++) {
                all.write(c.frame(0x81, (i + body).getBytes(StandardCharsets.US_ASCII), true));
            }
            Thread writer = new Thread(() -> {
                try {
                    c.write(all.toByteArray());
                } catch (IOException ignored) {
                    // the test fails on the missing echoes
                }
            });
            writer.start();
            Await.until(() -> server.metrics().readPauses > pausesBefore, () -> "reading never paused: " + server.metrics());
            release.countDown();
            assertEquals("after hold", c.read().text());
            for (int i = 0; i < n; i++) {
                assertEquals(i + body, c.read().text());
            }
            writer.join(30_000);
        }
        assertEquals(0, overlaps.get());
    }

    @Test
    void aCloseWhileACallbackRunsIsAnsweredAtOnceAndOnCloseComesAfterTheCallback() throws Exception {
        try (WsRawClient c = ws("/ws/blocking")) {
            c.sendText("hold");
            assertTrue(entered.await(30, TimeUnit.SECONDS));
            c.send(0x88, new byte[]{0x03, (byte) 0xE8}); // close 1000
            assertEquals(1000, c.readCloseCode()); // echoed by the loop while the callback still blocks
            assertTrue(c.endedByServer());
            assertEquals(List.of("hold"), events); // onClose waits for the running callback
            release.countDown();
            Await.until(() -> events.size() == 3, () -> "events: " + events);
            assertEquals(List.of("hold", "send failed", "close 1000"), events);
        }
    }

    @Test
    void framesHeldBehindTheCallbacksAreStillAnsweredAfterTheClientsFin() throws Exception {
        try (WsRawClient c = ws("/ws/blocking")) {
            c.sendText("hold");
            assertTrue(entered.await(30, TimeUnit.SECONDS));
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (int i = 0; i < 40; i++) { // more than the queue takes: the rest is held, not parsed
                all.write(c.frame(0x81, ("m" + i).getBytes(StandardCharsets.US_ASCII), true));
            }
            all.write(c.frame(0x88, new byte[]{0x03, (byte) 0xE8}, true));
            c.write(all.toByteArray());
            c.socket.shutdownOutput(); // FIN behind the close frame
            release.countDown();
            assertEquals("after hold", c.read().text());
            // The loop answers the close frame as soon as it parses it; replies to messages still queued
            // for the callbacks then fail (RFC 6455 §5.5.1: no data frame after a close). What arrives
            // is a prefix of the echoes, in order, then the close.
            int i = 0;
            WsRawClient.Frame f;
            while ((f = c.read()).opcode() == 1) {
                assertEquals("m" + i++, f.text());
            }
            assertEquals(8, f.opcode());
            assertEquals(1000, f.closeCode());
            assertTrue(c.endedByServer());
        }
        Await.until("onClose 1000", () -> events.contains("close 1000"));
        // Every frame held behind the callbacks at the FIN was still parsed and delivered, in order.
        List<String> expected = new java.util.ArrayList<>(List.of("hold"));
        for (int i = 0; i < 40; i++) {
            expected.add("m" + i);
        }
        assertEquals(expected, texts);
        assertEquals("close 1000", events.get(events.size() - 1));
    }

    @Test
    void pythonWebsocketsGetsItsMessagesBackInOrder() throws Exception {
        java.nio.file.Path tools = WebSocketClientsTest.pythonTools();
        org.junit.jupiter.api.Assumptions.assumeTrue(tools != null,
                "Python websockets is not installed in .tools/python (scripts/lib/ensure-tools.sh installs it)");
        String script = """
                import sys
                sys.path.insert(0, sys.argv[2])
                from websockets.sync.client import connect
                with connect(sys.argv[1]) as ws:
                    for i in range(200):
                        ws.send('p%d' % i)
                    got = [ws.recv() for i in range(200)]
                    print(got == ['p%d' % i for i in range(200)])
                    ws.close(1000)
                """;
        String out = WebSocketClientsTest.run(java.nio.file.Files.createTempDirectory("ws-py"), "python3", "-c", script,
                "ws://127.0.0.1:" + server.port() + "/ws/blocking", tools.toString());
        assertEquals("True\n", out);
        Await.until("onClose 1000", () -> events.contains("close 1000"));
        assertEquals(0, overlaps.get());
    }

    @Test
    void aCallbackThatThrowsClosesWith1011() throws Exception {
        try (WsRawClient c = ws("/ws/blocking")) {
            c.sendText("throw");
            assertEquals(1011, c.readCloseCode());
            assertTrue(c.endedByServer());
        }
        Await.until("onClose 1011", () -> events.contains("close 1011"));
    }
}
