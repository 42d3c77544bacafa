package dev.peregrine.client;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.testing.ScriptedServer;
import dev.peregrine.testing.Transports;
import dev.peregrine.tls.TlsConfig;
import dev.peregrine.websocket.Payload;
import dev.peregrine.WebSocketHandler;
import dev.peregrine.WebSocketOptions;
import dev.peregrine.websocket.WebSocketSession;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The WebSocket client ({@link HttpClient#webSocket}) over real sockets against Peregrine's own
 * WebSocket server on every transport (ws and wss, with and without permessage-deflate), and against a
 * scripted raw server for what a correct server never sends (a masked frame, invalid UTF-8, a wrong
 * accept value).
 */
class WebSocketClientTest {
    static Stream<Transport> transports() {
        return Transports.names().map(name -> Transport.valueOf(name.toUpperCase(Locale.ROOT)));
    }

    /** Records every callback as a line; binary as "binary:" + length + ":" + hash. */
    static final class Recorder implements WebSocketHandler {
        final BlockingQueue<String> events = new LinkedBlockingQueue<>();
        volatile byte[] lastBinary;

        @Override
        public void onOpen(WebSocketSession s) {
            events.add("open");
        }

        @Override
        public void onText(WebSocketSession s, Payload text) {
            events.add("text:" + text.text());
        }

        @Override
        public void onBinary(WebSocketSession s, Payload data) {
            lastBinary = data.bytes();
            events.add("binary:" + lastBinary.length);
        }

        @Override
        public void onPong(WebSocketSession s, Payload data) {
            events.add("pong:" + data.text());
        }

        @Override
        public void onClose(WebSocketSession s, int code, String reason) {
            events.add("close:" + code + ":" + reason);
        }

        String next() throws InterruptedException {
            String e = events.poll(10, TimeUnit.SECONDS);
            assertNotNull(e, "no event within 10 s");
            return e;
        }
    }

    /** The server side: echoes, and answers a few commands. */
    static final class EchoServer implements WebSocketHandler {
        final BlockingQueue<String> events = new LinkedBlockingQueue<>();

        @Override
        public void onOpen(WebSocketSession s) {
            events.add("open compressed=" + s.compressed());
        }

        @Override
        public void onText(WebSocketSession s, Payload text) {
            String t = text.text();
            if (t.equals("parts")) {
                s.sendTextPart("ab", false, null);
                s.sendTextPart("cd", false, null);
                s.sendTextPart("é", true, null);
            } else if (t.equals("ping me")) {
                s.ping("srv".getBytes(StandardCharsets.UTF_8));
            } else if (t.equals("close me")) {
                s.close(4001, "by the server");
            } else if (t.equals("big")) {
                s.sendBinary(new byte[5000]);
            } else {
                s.send(text);
            }
        }

        @Override
        public void onBinary(WebSocketSession s, Payload data) {
            s.send(data);
        }

        @Override
        public void onPong(WebSocketSession s, Payload data) {
            s.sendText("server got pong:" + data.text());
        }

        @Override
        public void onClose(WebSocketSession s, int code, String reason) {
            events.add("close:" + code + ":" + reason);
        }
    }

    private static Server server(Transport t, EchoServer handler, TlsConfig tls) {
        Server.Builder b = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t)
                .websocket("/ws/echo", handler);
        if (tls != null) {
            b.tls(tls);
        }
        return b.start();
    }

    private static void echoes(WebSocketSession s, Recorder r) throws Exception {
        s.sendText("hello é");
        assertEquals("text:hello é", r.next());
        String long1 = "x".repeat(10_000) + "y"; // over the compression threshold
        s.sendText(long1);
        assertEquals("text:" + long1, r.next());
        byte[] big = new byte[300_000]; // larger than a loop buffer: the masked copy spans several drains
        new java.util.Random(7).nextBytes(big);
        s.sendBinary(big);
        assertEquals("binary:" + big.length, r.next());
        assertArrayEquals(big, r.lastBinary);
        // Fragments both ways: the client's three parts arrive joined; the server's too.
        s.sendTextPart("fr", false, null);
        s.sendTextPart("ag", false, null);
        s.sendTextPart("s", true, null);
        assertEquals("text:frags", r.next());
        s.sendText("parts");
        assertEquals("text:abcdé", r.next());
    }

    @ParameterizedTest
    @MethodSource("transports")
    void echoesTextBinaryAndFragmentsWithAndWithoutDeflate(Transport t) throws Exception {
        EchoServer sh = new EchoServer();
        try (Server server = server(t, sh, null);
             HttpClient client = HttpClient.builder().transport(t).build()) {
            for (boolean deflate : new boolean[]{true, false}) {
                Recorder r = new Recorder();
                WebSocketSession s = client.webSocket(URI.create("ws://127.0.0.1:" + server.port() + "/ws/echo"),
                        WebSocketOptions.DEFAULTS.compression(deflate), r).get(10, TimeUnit.SECONDS);
                assertEquals("open", r.next());
                assertEquals("open compressed=" + deflate, sh.events.poll(10, TimeUnit.SECONDS));
                assertEquals(deflate, s.compressed());
                echoes(s, r);
                s.close(1000, "done");
                assertEquals("close:1000:", r.next()); // the server echoes the code (§5.5.1)
                assertEquals("close:1000:done", sh.events.poll(10, TimeUnit.SECONDS));
                assertFalse(s.isOpen());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void pingsPongsAndCloseCodesBothWays(Transport t) throws Exception {
        EchoServer sh = new EchoServer();
        try (Server server = server(t, sh, null);
             HttpClient client = HttpClient.builder().transport(t).build()) {
            URI uri = URI.create("ws://127.0.0.1:" + server.port() + "/ws/echo");
            Recorder r = new Recorder();
            WebSocketSession s = client.webSocket(uri, r).get(10, TimeUnit.SECONDS);
            assertEquals("open", r.next());
            s.ping("abc".getBytes(StandardCharsets.UTF_8));
            assertEquals("pong:abc", r.next());
            s.sendText("ping me"); // the server pings; the client's automatic pong reaches its onPong
            assertEquals("text:server got pong:srv", r.next());
            s.close(4000, "by the client");
            assertEquals("close:4000:", r.next());
            sh.events.take();
            assertEquals("close:4000:by the client", sh.events.poll(10, TimeUnit.SECONDS));

            Recorder r2 = new Recorder();
            WebSocketSession s2 = client.webSocket(uri, r2).get(10, TimeUnit.SECONDS);
            assertEquals("open", r2.next());
            s2.sendText("close me");
            assertEquals("close:4001:by the server", r2.next());
            assertFalse(s2.isOpen());
            assertThrows(IllegalArgumentException.class, () -> s2.close(1005, "")); // checked at the call
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void closingTheHttpClientClosesItsSessionsWith1001(Transport t) throws Exception {
        EchoServer sh = new EchoServer();
        try (Server server = server(t, sh, null)) {
            HttpClient client = HttpClient.builder().transport(t).build();
            Recorder r = new Recorder();
            client.webSocket(URI.create("ws://127.0.0.1:" + server.port() + "/ws/echo"), r).get(10, TimeUnit.SECONDS);
            assertEquals("open", r.next());
            sh.events.take();
            client.close();
            assertEquals("close:1001:client closing", sh.events.poll(10, TimeUnit.SECONDS));
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void aMessageOverTheClientsLimitIs1009(Transport t) throws Exception {
        EchoServer sh = new EchoServer();
        try (Server server = server(t, sh, null);
             HttpClient client = HttpClient.builder().transport(t).build()) {
            Recorder r = new Recorder();
            WebSocketSession s = client.webSocket(URI.create("ws://127.0.0.1:" + server.port() + "/ws/echo"),
                    WebSocketOptions.DEFAULTS.maxMessageSize(1000), r).get(10, TimeUnit.SECONDS);
            assertEquals("open", r.next());
            s.sendText("big");
            assertTrue(r.next().startsWith("close:1009:"));
            sh.events.take();
            assertTrue(sh.events.poll(10, TimeUnit.SECONDS).startsWith("close:1009:"));
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void wssEchoesWithDeflate(Transport t) throws Exception {
        TlsConfig tls = TlsConfig.selfSigned();
        EchoServer sh = new EchoServer();
        try (Server server = server(t, sh, tls);
             HttpClient client = HttpClient.builder().transport(t).sslContext(TrustingContext.of(tls.certificate())).build();
             HttpClient untrusting = HttpClient.builder().transport(t).build()) {
            Recorder r = new Recorder();
            WebSocketSession s = client.webSocket(URI.create("wss://localhost:" + server.port() + "/ws/echo"), r)
                    .get(10, TimeUnit.SECONDS);
            assertEquals("open", r.next());
            assertTrue(s.compressed());
            echoes(s, r);
            s.close();
            assertEquals("close:1000:", r.next());
            // The default trust does not know the test certificate: the future fails with phase TLS.
            ExecutionException e = assertThrows(ExecutionException.class, () -> untrusting.webSocket(
                    URI.create("wss://localhost:" + server.port() + "/ws/echo"), new Recorder()).get(10, TimeUnit.SECONDS));
            assertEquals(ClientException.Phase.TLS, ((ClientException) e.getCause()).phase());
        }
    }

    // ---------------------------------------------------------------- a raw server breaking the rules

    private static String acceptFor(String head) throws Exception {
        String key = null;
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("sec-websocket-key:")) {
                key = line.substring(18).trim();
            }
        }
        assertNotNull(key);
        assertEquals(16, Base64.getDecoder().decode(key).length);
        return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-1")
                .digest((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").getBytes(StandardCharsets.US_ASCII)));
    }

    /** Reads one client frame: asserts it is masked, returns {opcode, payload...} unmasked. */
    private static byte[] readClientFrame(InputStream in) throws IOException {
        DataInputStream d = new DataInputStream(in);
        int b0 = d.readUnsignedByte();
        int b1 = d.readUnsignedByte();
        assertTrue((b1 & 0x80) != 0, "a client frame is masked (RFC 6455 §5.3)");
        int len = b1 & 0x7F;
        if (len == 126) {
            len = d.readUnsignedShort();
        } else if (len == 127) {
            len = (int) d.readLong();
        }
        byte[] key = new byte[4];
        d.readFully(key);
        byte[] p = new byte[len + 1];
        p[0] = (byte) (b0 & 0x0F);
        d.readFully(p, 1, len);
        for (int i = 0; i < len; i++) {
            p[i + 1] ^= key[i & 3];
        }
        return p;
    }

    private static int closeCode(byte[] frame) {
        assertEquals(8, frame[0], "a close frame");
        return ((frame[1] & 0xFF) << 8) | (frame[2] & 0xFF);
    }

    @ParameterizedTest
    @MethodSource("transports")
    void aMaskedServerFrameOrInvalidUtf8FailsTheConnectionWithItsCode(Transport t) throws Exception {
        BlockingQueue<Integer> closes = new LinkedBlockingQueue<>();
        try (ScriptedServer raw = new ScriptedServer((c, n) -> {
            String head = c.readRequest();
            String accept;
            try {
                accept = acceptFor(head);
            } catch (Exception e) {
                throw new IOException(e);
            }
            c.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "
                    + accept + "\r\n\r\n");
            if (n == 0) {
                // A masked text frame "Hi" (key 1 2 3 4): servers never mask (§5.1).
                c.socket.getOutputStream().write(new byte[]{(byte) 0x81, (byte) 0x82, 1, 2, 3, 4, 'H' ^ 1, 'i' ^ 2});
            } else {
                c.socket.getOutputStream().write(new byte[]{(byte) 0x81, 2, 'a', (byte) 0xFF}); // invalid UTF-8
            }
            closes.add(closeCode(readClientFrame(c.socket.getInputStream())));
        }); HttpClient client = HttpClient.builder().transport(t).build()) {
            URI uri = URI.create("ws://127.0.0.1:" + raw.port() + "/x");
            Recorder masked = new Recorder();
            WebSocketSession s = client.webSocket(uri, WebSocketOptions.DEFAULTS.compression(false), masked).get(10, TimeUnit.SECONDS);
            assertEquals("open", masked.next());
            assertTrue(masked.next().startsWith("close:1002:"));
            assertEquals(1002, closes.poll(10, TimeUnit.SECONDS));
            assertFalse(s.isOpen());
            ExecutionException sendAfter = null; // a send after the failure completes its callback with an exception
            java.util.concurrent.CompletableFuture<Void> f = new java.util.concurrent.CompletableFuture<>();
            s.sendText("late", dev.peregrine.websocket.SendCallback.of(f));
            sendAfter = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
            assertInstanceOf(IllegalStateException.class, sendAfter.getCause());

            Recorder utf8 = new Recorder();
            client.webSocket(uri, WebSocketOptions.DEFAULTS.compression(false), utf8).get(10, TimeUnit.SECONDS);
            assertEquals("open", utf8.next());
            assertTrue(utf8.next().startsWith("close:1007:"));
            assertEquals(1007, closes.poll(10, TimeUnit.SECONDS));
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void aWrongHandshakeAnswerFailsTheFuture(Transport t) throws Exception {
        try (ScriptedServer raw = new ScriptedServer((c, n) -> {
            c.readRequest();
            if (n == 0) {
                c.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n");
            } else if (n == 1) {
                c.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
            } else {
                c.socket.close();
            }
        }); HttpClient client = HttpClient.builder().transport(t).build()) {
            URI uri = URI.create("ws://127.0.0.1:" + raw.port() + "/x");
            for (ClientException.Phase phase : new ClientException.Phase[]{
                    ClientException.Phase.RESPONSE, ClientException.Phase.RESPONSE, ClientException.Phase.CLOSED}) {
                Recorder r = new Recorder();
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> client.webSocket(uri, r).get(10, TimeUnit.SECONDS));
                assertEquals(phase, ((ClientException) e.getCause()).phase(), e.getCause().getMessage());
                assertTrue(r.events.isEmpty(), "no callback for a failed handshake: " + r.events);
            }
            assertThrows(IllegalArgumentException.class, () -> client.webSocket(URI.create("http://h/x"), new Recorder()));
        }
    }
}
