package dev.peregrine.http2;

import dev.peregrine.Execution;
import dev.peregrine.Server;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code req.remoteAddress()} is the client's socket address over HTTP/2 and HTTP/1.1, for inline and
 * blocking handlers, on every transport: the endpoints keep it packed and make it only when a handler
 * first asks (issue 28: an idle connection's memory), and a blocking handler's copy of the request gets
 * it on the loop.
 */
class Http2RemoteAddressTest {
    private static Server start(String transport) {
        return Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).http2(true)
                .get("/plaintext", (req, res) -> res.text("Hello, World!"))
                .get("/peer", (req, res) -> res.text(peer(req)))
                .get("/peer-blocking", Execution.BLOCKING, (req, res) -> res.text(peer(req)))
                .start();
    }

    private static String peer(dev.peregrine.Request req) {
        return req.remoteAddress().getAddress().getHostAddress() + " " + req.remoteAddress().getPort();
    }

    private static String body(H2Wire w, int stream) throws Exception {
        StringBuilder b = new StringBuilder();
        while (true) {
            H2Wire.Frame f = w.read();
            if (f.stream() == stream && f.type() == 0) {
                b.append(new String(f.payload(), StandardCharsets.ISO_8859_1));
                if (f.endStream()) {
                    return b.toString();
                }
            } else if (f.stream() == stream && f.type() == 3) {
                throw new AssertionError("stream " + stream + " reset");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void overHttp2(String transport) throws Exception {
        try (Server server = start(transport); H2Wire w = new H2Wire(server.port()).start()) {
            String me = "127.0.0.1 " + w.socket.getLocalPort();
            w.headers(1, true, H2Wire.get("/plaintext")); // served without asking: nothing made
            assertEquals("Hello, World!", body(w, 1));
            w.headers(3, true, H2Wire.get("/peer-blocking")); // the first ask is a copy's, made on the loop
            assertEquals(me, body(w, 3));
            w.headers(5, true, H2Wire.get("/peer"));
            assertEquals(me, body(w, 5));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void overHttp11(String transport) throws Exception {
        try (Server server = start(transport); Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(20_000);
            String me = "127.0.0.1 " + s.getLocalPort();
            for (String path : new String[] {"/peer", "/peer-blocking", "/plaintext", "/peer"}) {
                s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: a\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                String answer = response(s.getInputStream());
                assertTrue(answer.startsWith("HTTP/1.1 200"), answer);
                assertEquals(path.equals("/plaintext") ? "Hello, World!" : me, answer.substring(answer.indexOf("\r\n\r\n") + 4));
            }
        }
    }

    /** One response with a content-length body. */
    private static String response(InputStream in) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (!b.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int c = in.read();
            assertTrue(c >= 0, "closed mid-head: " + b);
            b.write(c);
        }
        String head = b.toString(StandardCharsets.ISO_8859_1);
        int at = head.toLowerCase(java.util.Locale.ROOT).indexOf("content-length:");
        int length = Integer.parseInt(head.substring(at + 15, head.indexOf("\r\n", at)).trim());
        b.write(in.readNBytes(length));
        return b.toString(StandardCharsets.ISO_8859_1);
    }
}
