package dev.peregrine.e2e;

import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import dev.peregrine.websocket.Payload;
import dev.peregrine.websocket.PreparedMessage;
import dev.peregrine.WebSocketHandler;
import dev.peregrine.WebSocketOptions;
import dev.peregrine.websocket.WebSocketSession;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The WebSocket server over real sockets with exact bytes (RFC 6455, RFC 7692), on every transport:
 * the handshake and its refusals, every message length form, fragmentation with control frames
 * between, the frames of a conversation split at every byte, each protocol violation with its close
 * code and a clean end while a bystander carries on, the limits, the timeouts, compression, sending
 * from other threads and broadcast. After each test every pooled buffer is back (ServerTestBase).
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class WebSocketTest extends ServerTestBase {
    private final Set<WebSocketSession> room = ConcurrentHashMap.newKeySet();
    private final CopyOnWriteArrayList<String> closes = new CopyOnWriteArrayList<>();

    WebSocketTest(ServerFactory factory) {
        super(factory);
    }

    @Override
    @BeforeEach
    void startServer() {
        WebSocketHandler echo = new WebSocketHandler() {
            @Override
            public void onText(WebSocketSession s, Payload text) {
                s.send(text);
            }

            @Override
            public void onBinary(WebSocketSession s, Payload data) {
                s.send(data);
            }

            @Override
            public void onClose(WebSocketSession s, int code, String reason) {
                closes.add(code + " " + reason);
            }
        };
        WebSocketOptions small = WebSocketOptions.DEFAULTS.maxFrameSize(1000).maxMessageSize(4000);
        server = factory.start(b -> b
                .filter((req, res, next) -> {
                    if (req.path().startsWith("/ws/secret") && req.header("X-Token") == null) {
                        res.status(401).text("no token\n");
                        return;
                    }
                    next.handle(req, res);
                })
                .websocket("/ws/test", echo)
                .websocket("/ws/small", small, echo)
                .websocket("/ws/secret", echo)
                .websocket("/ws/idle", WebSocketOptions.DEFAULTS.idleTimeout(Duration.ofMillis(200)), echo)
                .websocket("/ws/ping", WebSocketOptions.DEFAULTS.pingInterval(Duration.ofMillis(100)), echo)
                .websocket("/ws/origin", WebSocketOptions.DEFAULTS.originCheck("https://good.example"::equals)
                        .subprotocols("v2.chat", "v1.chat"), echo)
                .websocket("/ws/room/{room}", new WebSocketHandler() {
                    @Override
                    public void onOpen(WebSocketSession s) {
                        s.sendText("room " + s.pathParam("room") + " " + s.subprotocol());
                        room.add(s);
                    }

                    @Override
                    public void onText(WebSocketSession s, Payload text) {
                        String t = text.text();
                        if (t.equals("close-me")) {
                            s.close(4000, "bye");
                        } else if (t.equals("parts")) {
                            new Thread(() -> {
                                s.sendTextPart("par", false, null);
                                s.sendTextPart("tial", true, null);
                            }).start();
                        } else if (t.equals("throw")) {
                            throw new IllegalStateException("a handler's bug (expected by the test)");
                        }
                    }

                    @Override
                    public void onClose(WebSocketSession s, int code, String reason) {
                        room.remove(s);
                        closes.add(code + " " + reason);
                    }
                })
                .websocket("/ws/slowclose", WebSocketOptions.DEFAULTS.closeTimeout(Duration.ofMillis(200)), new WebSocketHandler() {
                    @Override
                    public void onText(WebSocketSession s, Payload text) {
                        s.close(1000, "done");
                    }
                }));
    }

    private WsRawClient ws(String path) throws IOException {
        return WsRawClient.open(server.port(), path, "");
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    // ---------------------------------------------------------------- handshake

    @Test
    void handshakeAnswersWithTheAcceptKey() throws IOException {
        try (WsRawClient c = ws("/ws/echo")) {
            assertTrue(c.head.contains("Sec-WebSocket-Accept: " + WsRawClient.ACCEPT + "\r\n"), c.head);
            assertTrue(c.head.contains("Upgrade: websocket\r\n"), c.head);
            assertTrue(!c.head.contains("Sec-WebSocket-Extensions"), c.head); // none offered
        }
    }

    private RawResponse handshakeStatus(String request) throws IOException {
        try (RawClient c = new RawClient(server.port())) {
            c.send(request);
            return c.read();
        }
    }

    @Test
    void badHandshakesGetTheirStatus() throws IOException {
        String ok = WsRawClient.handshake("/ws/echo", "");
        assertEquals(400, handshakeStatus(ok.replace("Sec-WebSocket-Key: " + WsRawClient.KEY + "\r\n", "")).status);
        assertEquals(400, handshakeStatus(ok.replace(WsRawClient.KEY, "dGhlIHNhbXBsZSBub25jZQ")).status); // 15 bytes... not 24 chars
        assertEquals(400, handshakeStatus(ok.replace(WsRawClient.KEY, "dGhlIHNhbXBsZSBub25jZSE=")).status); // 17 bytes
        RawResponse v8 = handshakeStatus(ok.replace("Sec-WebSocket-Version: 13", "Sec-WebSocket-Version: 8"));
        assertEquals(426, v8.status);
        assertEquals("13", v8.header("Sec-WebSocket-Version"));
        assertEquals(400, handshakeStatus(ok.replace("Sec-WebSocket-Version: 13\r\n", "")).status);
        RawResponse plain = handshakeStatus("GET /ws/echo HTTP/1.1\r\nHost: localhost\r\n\r\n");
        assertEquals(426, plain.status);
        assertEquals("websocket", plain.header("Upgrade"));
        assertEquals(405, handshakeStatus(ok.replace("GET ", "POST ")).status);
        assertEquals(401, handshakeStatus(WsRawClient.handshake("/ws/secret", "")).status); // a filter applies
        assertEquals(403, handshakeStatus(WsRawClient.handshake("/ws/origin", "Origin: https://evil.example\r\n")).status);
        // An Upgrade no route accepts is answered as plain HTTP/1.1 (RFC 9110 §7.8), never 400.
        RawResponse other = handshakeStatus(WsRawClient.handshake("/plaintext", ""));
        assertEquals(200, other.status);
        assertEquals("Hello, World!", other.text());
    }

    @Test
    void filtersPathParametersAndSubprotocols() throws IOException {
        try (WsRawClient c = WsRawClient.open(server.port(), "/ws/secret", "X-Token: t\r\n")) {
            c.sendText("in");
            assertEquals("in", c.read().text());
        }
        try (WsRawClient c = WsRawClient.open(server.port(), "/ws/origin",
                "Origin: https://good.example\r\nSec-WebSocket-Protocol: v1.chat, v2.chat\r\n")) {
            assertTrue(c.head.contains("Sec-WebSocket-Protocol: v2.chat\r\n"), c.head); // the server's preference
        }
        try (WsRawClient c = WsRawClient.open(server.port(), "/ws/room/lobby", "")) {
            assertEquals("room lobby null", c.read().text());
        }
    }

    // ---------------------------------------------------------------- frames

    @Test
    void everyLengthFormEchoes() throws IOException {
        try (WsRawClient c = ws("/ws/echo")) {
            for (int n : new int[] {0, 1, 125, 126, 127, 65535, 65536, 200_000}) {
                byte[] p = bytes(n, n);
                c.send(0x82, p);
                WsRawClient.Frame f = c.read();
                assertEquals(0x82, f.b0(), "length " + n);
                assertArrayEquals(p, f.payload(), "length " + n);
            }
            c.sendText("κόσμε");
            assertEquals("κόσμε", c.read().text());
        }
    }

    @Test
    void fragmentsJoinWithControlFramesBetween() throws IOException {
        try (WsRawClient c = ws("/ws/echo")) {
            c.send(0x01, "Hel".getBytes(StandardCharsets.UTF_8));
            c.send(0x89, "p1".getBytes(StandardCharsets.UTF_8)); // ping between fragments
            c.send(0x00, "lo, ".getBytes(StandardCharsets.UTF_8));
            c.send(0x8A, "unsolicited".getBytes(StandardCharsets.UTF_8)); // a pong is ignored
            c.send(0x00, new byte[0]);
            c.send(0x80, "κόσμε".getBytes(StandardCharsets.UTF_8));
            WsRawClient.Frame pong = c.read();
            assertEquals(0x8A, pong.b0());
            assertEquals("p1", pong.text());
            WsRawClient.Frame echo = c.read();
            assertEquals(0x81, echo.b0());
            assertEquals("Hello, κόσμε", echo.text());
        }
    }

    @Test
    void aConversationSplitAtEveryByte() throws IOException {
        ByteArrayOutputStream conv = new ByteArrayOutputStream();
        try (WsRawClient probe = ws("/ws/echo")) { // only to build the frames with its masks
            conv.write(probe.frame(0x81, "one".getBytes(StandardCharsets.UTF_8), true));
            conv.write(probe.frame(0x02, bytes(130, 1), true));
            conv.write(probe.frame(0x89, "pi".getBytes(StandardCharsets.UTF_8), true));
            conv.write(probe.frame(0x80, bytes(3, 2), true));
            conv.write(probe.frame(0x88, new byte[] {0x03, (byte) 0xE8}, true));
        }
        byte[] all = conv.toByteArray();
        byte[] joined = new byte[133];
        System.arraycopy(bytes(130, 1), 0, joined, 0, 130);
        System.arraycopy(bytes(3, 2), 0, joined, 130, 3);
        for (int split = 1; split < all.length; split++) {
            try (WsRawClient c = ws("/ws/echo")) {
                c.write(java.util.Arrays.copyOfRange(all, 0, split));
                c.out.flush();
                c.write(java.util.Arrays.copyOfRange(all, split, all.length));
                assertEquals("one", c.read().text(), "split " + split);
                WsRawClient.Frame pong = c.read();
                assertEquals(0x8A, pong.b0(), "split " + split);
                WsRawClient.Frame bin = c.read();
                assertEquals(0x82, bin.b0());
                assertArrayEquals(joined, bin.payload(), "split " + split);
                assertEquals(1000, c.readCloseCode());
                assertTrue(c.endedByServer(), "split " + split);
            }
        }
    }

    // ---------------------------------------------------------------- bad input

    /** Sends {@code bad} on one connection while another is open; asserts the close code, the end, and that the other carries on. */
    private void violation(String path, byte[] bad, int expectedCode) throws IOException {
        try (WsRawClient bystander = ws("/ws/echo"); WsRawClient c = ws(path)) {
            c.write(bad);
            assertEquals(expectedCode, c.readCloseCode());
            assertTrue(c.endedByServer());
            bystander.sendText("still here");
            assertEquals("still here", bystander.read().text());
        }
        Await.until(() -> closes.stream().anyMatch(s -> s.startsWith(expectedCode + " ")), () -> "onClose " + expectedCode + ": " + closes);
    }

    @Test
    void protocolViolationsCloseWith1002() throws IOException {
        try (WsRawClient f = ws("/ws/echo")) { // only to build frames
            violation("/ws/test", f.frame(0x81, "x".getBytes(), false), 1002);                 // unmasked (§5.1)
            violation("/ws/test", f.frame(0xC1, "x".getBytes(), true), 1002);                  // RSV1, nothing negotiated
            violation("/ws/test", f.frame(0xA1, "x".getBytes(), true), 1002);                  // RSV2
            violation("/ws/test", f.frame(0x83, "x".getBytes(), true), 1002);                  // opcode 3
            violation("/ws/test", f.frame(0x8B, "x".getBytes(), true), 1002);                  // opcode 11
            violation("/ws/test", f.frame(0x09, "x".getBytes(), true), 1002);                  // fragmented ping
            violation("/ws/test", f.frame(0x89, new byte[126], true), 1002);                   // ping of 126 bytes
            violation("/ws/test", f.frame(0x80, "x".getBytes(), true), 1002);                  // continuation, no message
            byte[] twoStarts = concat(f.frame(0x01, "a".getBytes(), true), f.frame(0x81, "b".getBytes(), true));
            violation("/ws/test", twoStarts, 1002);                                            // a message inside a message
            violation("/ws/test", f.frame(0x88, new byte[] {0x03}, true), 1002);               // close payload of 1 byte
            violation("/ws/test", f.frame(0x88, new byte[] {0x03, (byte) 0xED}, true), 1002);  // close code 1005
        }
    }

    @Test
    void invalidUtf8ClosesWith1007FailingFast() throws IOException {
        try (WsRawClient f = ws("/ws/echo")) {
            violation("/ws/test", f.frame(0x81, new byte[] {(byte) 0xCE, (byte) 0xBA, (byte) 0xC0}, true), 1007);
            // The first fragment is already invalid: the server closes before the message ends.
            violation("/ws/test", f.frame(0x01, new byte[] {'o', 'k', (byte) 0xED, (byte) 0xA0, (byte) 0x80}, true), 1007);
            byte[] badReason = {0x03, (byte) 0xE8, (byte) 0xFF};
            violation("/ws/test", f.frame(0x88, badReason, true), 1007);
        }
    }

    @Test
    void limitsCloseWith1009() throws IOException {
        try (WsRawClient f = ws("/ws/echo")) {
            violation("/ws/small", f.frame(0x82, new byte[1001], true), 1009);                 // maxFrameSize
            byte[] parts = concat(concat(f.frame(0x02, new byte[1000], true), f.frame(0x00, new byte[1000], true)),
                    concat(f.frame(0x00, new byte[1000], true), concat(f.frame(0x00, new byte[1000], true), f.frame(0x80, new byte[1], true))));
            violation("/ws/small", parts, 1009);                                               // maxMessageSize
        }
    }

    @Test
    void aThrowingCallbackClosesWith1011() throws IOException {
        try (WsRawClient c = ws("/ws/room/x")) {
            c.read();
            c.sendText("throw");
            assertEquals(1011, c.readCloseCode());
            assertTrue(c.endedByServer());
        }
    }

    // ---------------------------------------------------------------- closing and timers

    @Test
    void clientCloseIsEchoedAndTheServerEndsTcp() throws IOException {
        try (WsRawClient c = ws("/ws/test")) {
            c.send(0x88, new byte[] {0x0F, (byte) 0xA0, 'b', 'y', 'e'}); // 4000 "bye"
            assertEquals(4000, c.readCloseCode());
            assertTrue(c.endedByServer());
        }
        Await.until(() -> closes.contains("4000 bye"), () -> "onClose: " + closes);
        try (WsRawClient c = ws("/ws/test")) {
            c.send(0x88, new byte[0]);
            WsRawClient.Frame f = c.read();
            assertEquals(0, f.payload().length); // no code received: none echoed
            assertTrue(c.endedByServer());
        }
        Await.until(() -> closes.contains("1005 "), () -> "onClose: " + closes);
    }

    @Test
    void serverCloseWaitsForThePeersClose() throws IOException {
        try (WsRawClient c = ws("/ws/room/a")) {
            c.read();
            c.sendText("close-me");
            WsRawClient.Frame f = c.read();
            assertEquals(8, f.opcode());
            assertEquals(4000, f.closeCode());
            assertEquals("bye", new String(f.payload(), 2, f.payload().length - 2, StandardCharsets.UTF_8));
            c.sendText("ignored after the server's close");
            c.send(0x88, new byte[] {0x0F, (byte) 0xA0});
            assertTrue(c.endedByServer());
        }
        Await.until(() -> closes.contains("4000 "), () -> "onClose: " + closes);
    }

    @Test
    void aPeerThatNeverAnswersTheCloseIsDroppedAfterCloseTimeout() throws IOException {
        try (WsRawClient c = ws("/ws/slowclose")) {
            c.sendText("x");
            assertEquals(1000, c.readCloseCode());
            assertTrue(c.endedByServer()); // 200 ms later, with no close from us
        }
    }

    @Test
    void idleTimeoutAndKeepAlivePing() throws IOException {
        try (WsRawClient c = ws("/ws/idle")) {
            assertEquals(1001, c.readCloseCode());
            c.send(0x88, new byte[] {0x03, (byte) 0xE9});
            assertTrue(c.endedByServer());
        }
        try (WsRawClient c = ws("/ws/ping")) {
            WsRawClient.Frame ping = c.read();
            assertEquals(0x89, ping.b0());
            c.send(0x8A, ping.payload());
            assertEquals(0x89, c.read().b0()); // alive: pinged again, not closed
            assertEquals(1001, c.readCloseCode()); // this one we do not answer
        }
    }

    @Test
    void serverShutdownSaysGoingAway() throws Exception {
        Server other = factory.start();
        try (WsRawClient c = WsRawClient.open(other.port(), "/ws/echo", "")) {
            Thread stopper = new Thread(other::close);
            stopper.start();
            assertEquals(1001, c.readCloseCode());
            c.send(0x88, new byte[] {0x03, (byte) 0xE9});
            assertTrue(c.endedByServer());
            stopper.join();
        } finally {
            other.close();
        }
    }

    @Test
    void abruptEndIsReportedAs1006() throws IOException {
        try (WsRawClient c = ws("/ws/test")) {
            c.sendText("x");
            c.read();
        }
        Await.until(() -> closes.contains("1006 "), () -> "onClose: " + closes);
    }

    // ---------------------------------------------------------------- compression

    @Test
    void permessageDeflateBothWays() throws Exception {
        try (WsRawClient c = WsRawClient.open(server.port(), "/ws/echo",
                "Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits, permessage-deflate; client_max_window_bits\r\n")) {
            // The first offer is malformed (the parameter needs a value): declined, the second taken.
            assertTrue(c.head.contains("Sec-WebSocket-Extensions: permessage-deflate\r\n"), c.head);
            Deflater d = new Deflater(6, true);
            Inflater inf = new Inflater(true);
            for (int round = 0; round < 3; round++) { // context carried over between messages
                String text = "compress me, compress me, compress me " + round + " ".repeat(200);
                byte[] z = deflate(d, text.getBytes(StandardCharsets.UTF_8));
                // in two fragments: RSV1 on the first only (RFC 7692 §6.1)
                int half = z.length / 2;
                c.send(0x41, java.util.Arrays.copyOfRange(z, 0, half));
                c.send(0x80, java.util.Arrays.copyOfRange(z, half, z.length));
                WsRawClient.Frame f = c.read();
                assertEquals(0xC1, f.b0(), "compressed text back");
                assertEquals(text, new String(inflate(inf, f.payload()), StandardCharsets.UTF_8));
            }
            c.send(0x81, "tiny".getBytes(StandardCharsets.UTF_8)); // uncompressed is allowed too
            assertEquals(0x81, c.read().b0()); // and small messages come back uncompressed
            c.send(0xC0 | 0x00, new byte[] {1}); // RSV1 on a continuation: 1002
            assertEquals(1002, c.readCloseCode());
        }
    }

    @Test
    void aSmallServerWindowIsHonouredBySendingUncompressed() throws Exception {
        try (WsRawClient c = WsRawClient.open(server.port(), "/ws/echo",
                "Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=10; server_no_context_takeover\r\n")) {
            assertTrue(c.head.contains("Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover;"
                    + " server_max_window_bits=10\r\n"), c.head);
            String text = "x".repeat(1000);
            c.send(0xC1, deflate(new Deflater(6, true), text.getBytes(StandardCharsets.UTF_8)));
            WsRawClient.Frame f = c.read();
            assertEquals(0x81, f.b0()); // java.util.zip cannot keep to a 1 KiB window: not compressed at all
            assertEquals(text, f.text());
        }
    }

    @Test
    void aDecompressionBombClosesWith1009() throws IOException {
        try (WsRawClient bystander = ws("/ws/echo");
             WsRawClient c = WsRawClient.open(server.port(), "/ws/small", "Sec-WebSocket-Extensions: permessage-deflate\r\n")) {
            byte[] z = deflate(new Deflater(9, true), new byte[512 << 10]); // 512 KiB of zeros in about 500 bytes
            assertTrue(z.length <= 1000, "fits one frame: " + z.length);
            c.send(0xC2, z);
            assertEquals(1009, c.readCloseCode());
            assertTrue(c.endedByServer());
            bystander.sendText("ok");
            assertEquals("ok", bystander.read().text());
        }
    }

    private static byte[] deflate(Deflater d, byte[] in) {
        d.setInput(in);
        byte[] out = new byte[in.length + 1024];
        int n = d.deflate(out, 0, out.length, Deflater.SYNC_FLUSH);
        return java.util.Arrays.copyOf(out, n - 4); // without 00 00 FF FF
    }

    private static byte[] inflate(Inflater inf, byte[] z) throws Exception {
        inf.setInput(concat(z, new byte[] {0, 0, (byte) 0xFF, (byte) 0xFF}));
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        byte[] buf = new byte[4096];
        int n;
        while ((n = inf.inflate(buf)) > 0) {
            o.write(buf, 0, n);
        }
        return o.toByteArray();
    }

    // ---------------------------------------------------------------- sending from other threads, backpressure

    @Test
    void broadcastFromAnotherThreadReachesEverySession() throws IOException {
        WsRawClient[] clients = new WsRawClient[5];
        try {
            for (int i = 0; i < clients.length; i++) {
                clients[i] = ws("/ws/room/b");
                clients[i].read();
            }
            Await.until(() -> room.size() == clients.length, () -> "sessions: " + room.size());
            PreparedMessage m = PreparedMessage.text("to all");
            java.util.concurrent.CompletableFuture<Void>[] sent = new java.util.concurrent.CompletableFuture[clients.length];
            int i = 0;
            for (WebSocketSession s : room) {
                sent[i] = new java.util.concurrent.CompletableFuture<>();
                s.send(m, dev.peregrine.websocket.SendCallback.of(sent[i++]));
            }
            java.util.concurrent.CompletableFuture.allOf(sent).join();
            for (WsRawClient c : clients) {
                assertEquals("to all", c.read().text());
            }
            for (WsRawClient c : clients) {
                c.sendText("parts"); // answered from another thread in two fragments
                WsRawClient.Frame first = c.read();
                assertEquals(0x01, first.b0());
                assertEquals("par", first.text());
                WsRawClient.Frame last = c.read();
                assertEquals(0x80, last.b0());
                assertEquals("tial", last.text());
            }
        } finally {
            for (WsRawClient c : clients) {
                if (c != null) {
                    c.close();
                }
            }
        }
    }

    @Test
    void aPeerThatDoesNotReadPausesItsOwnReadingOnly() throws IOException {
        long before = server.metrics().readPauses;
        try (WsRawClient bystander = ws("/ws/echo"); WsRawClient c = ws("/ws/echo")) {
            byte[] p = bytes(60_000, 9);
            byte[] frame = c.frame(0x82, p, true);
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 0; i < 300; i++) {
                        c.write(frame); // 18 MB of echoes it does not read yet: more than the sockets' buffers
                    }
                } catch (IOException e) {
                    // the test fails below
                }
            });
            writer.start();
            Await.until(() -> server.metrics().readPauses > before, () -> "no read pause: " + server.metrics());
            bystander.sendText("unaffected");
            assertEquals("unaffected", bystander.read().text());
            for (int i = 0; i < 300; i++) {
                assertArrayEquals(p, c.read().payload());
            }
            writer.join();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

}
