package dev.peregrine.e2e;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URI;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Real WebSocket clients against the examples app's {@code /ws/echo} on every transport: the JDK's
 * {@code java.net.http.WebSocket}, and Python's {@code websockets} (permessage-deflate on, as it offers
 * it by default), which {@code scripts/lib/ensure-tools.sh} installs into {@code .tools/python}.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class WebSocketClientsTest extends ServerTestBase {
    WebSocketClientsTest(ServerFactory factory) {
        super(factory);
    }

    /** Collects what the JDK client receives, whole messages only. */
    static final class Collector implements WebSocket.Listener {
        final LinkedBlockingQueue<Object> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();
        private final StringBuilder text = new StringBuilder();
        private final java.io.ByteArrayOutputStream binary = new java.io.ByteArrayOutputStream();

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                messages.add(text.toString());
                text.setLength(0);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            byte[] b = new byte[data.remaining()];
            data.get(b);
            binary.writeBytes(b);
            if (last) {
                messages.add(binary.toByteArray());
                binary.reset();
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
            closed.complete(statusCode);
            return null;
        }

        Object next() throws InterruptedException {
            Object m = messages.poll(30, TimeUnit.SECONDS);
            if (m == null) {
                throw new AssertionError("no message within 30 s");
            }
            return m;
        }
    }

    @Test
    void jdkClientEchoesTextAndBinaryAndCloses() throws Exception {
        Collector c = new Collector();
        WebSocket ws = java.net.http.HttpClient.newHttpClient().newWebSocketBuilder()
                .buildAsync(URI.create("ws://127.0.0.1:" + server.port() + "/ws/echo"), c).get(30, TimeUnit.SECONDS);
        ws.sendText("Hello, κόσμε", true).get(30, TimeUnit.SECONDS);
        assertEquals("Hello, κόσμε", c.next());
        byte[] big = new byte[3 << 20];
        new Random(5).nextBytes(big);
        ws.sendBinary(ByteBuffer.wrap(big), true).get(30, TimeUnit.SECONDS);
        assertArrayEquals(big, (byte[]) c.next());
        ws.sendText("frag", false).get(30, TimeUnit.SECONDS);
        ws.sendText("ments", true).get(30, TimeUnit.SECONDS);
        assertEquals("fragments", c.next());
        ws.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(30, TimeUnit.SECONDS);
        assertEquals(1000, c.closed.get(30, TimeUnit.SECONDS));
    }

    @Test
    void manyJdkClientsAtOnce() throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        List<WebSocket> sockets = new ArrayList<>();
        List<Collector> collectors = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            Collector c = new Collector();
            collectors.add(c);
            sockets.add(http.newWebSocketBuilder().buildAsync(URI.create("ws://127.0.0.1:" + server.port() + "/ws/echo"), c)
                    .get(30, TimeUnit.SECONDS));
        }
        for (int round = 0; round < 10; round++) {
            for (int i = 0; i < sockets.size(); i++) {
                sockets.get(i).sendText("c" + i + " r" + round, true).get(30, TimeUnit.SECONDS);
            }
            for (int i = 0; i < sockets.size(); i++) {
                assertEquals("c" + i + " r" + round, collectors.get(i).next());
            }
        }
        for (WebSocket ws : sockets) {
            ws.sendClose(WebSocket.NORMAL_CLOSURE, "").get(30, TimeUnit.SECONDS);
        }
        for (Collector c : collectors) {
            assertEquals(1000, c.closed.get(30, TimeUnit.SECONDS));
        }
    }

    /** The folder ensure-tools.sh installs Python's websockets into, or null. */
    static Path pythonTools() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path tools = p.resolve(".tools/python");
            if (Files.isDirectory(tools.resolve("websockets"))) {
                return tools;
            }
        }
        return null;
    }

    @Test
    void pythonWebsocketsWithCompression() throws Exception {
        Path tools = pythonTools();
        assumeTrue(tools != null, "Python websockets is not installed in .tools/python (scripts/lib/ensure-tools.sh installs it)");
        String script = """
                import sys
                sys.path.insert(0, sys.argv[2])
                from websockets.sync.client import connect
                from websockets.exceptions import ConnectionClosed
                with connect(sys.argv[1], max_size=None) as ws:
                    print(ws.response.headers.get('Sec-WebSocket-Extensions'))
                    ws.send('héllo')
                    print(ws.recv())
                    big = bytes(range(256)) * 8192
                    ws.send(big)
                    r = ws.recv()
                    print(len(r), r == big)
                    ws.send(['frag', 'ments'])
                    print(ws.recv())
                    print(ws.ping(b'x').wait(30))
                    ws.close(4001, 'bye')
                    print(ws.close_code, ws.close_reason)
                """;
        String out = run(tmpDir(), "python3", "-c", script, "ws://127.0.0.1:" + server.port() + "/ws/echo", tools.toString());
        assertEquals("permessage-deflate\n" // its offer asks for client_max_window_bits: honoured without an answer
                + "héllo\n2097152 True\nfragments\nTrue\n4001 \n", out);
    }

    private static Path tmpDir() throws java.io.IOException {
        return Files.createTempDirectory("ws-py");
    }

    static String run(Path dir, String... command) throws Exception {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assumeTrue(p.waitFor(60, TimeUnit.SECONDS), "python did not finish");
        assertEquals(0, p.exitValue(), out);
        return out;
    }
}
