package dev.peregrine.e2e;

import dev.peregrine.Handler;
import dev.peregrine.Handlers;
import dev.peregrine.Request;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The loop's one request view is reused by every request of every connection of the loop, and a
 * bodiless request does not clear or set its body when the request before it had none either
 * ({@code RequestView.reset} / {@code setBody}): what each handler sees of the body is its own request's.
 * Requests with and without bodies (Content-Length, chunked, Content-Length: 0) alternate on one
 * connection, pipelined in one write and one at a time; the handlers read the body every way there is
 * (length, string, buffer), and copy the request ({@code req.copy()}, and a blocking handler's detached
 * copy), whose length is counted from where the head ends: a body or a head end left over from the
 * request before would show in every answer. HTTP/2 streams fill the same views (sequential and
 * multiplexed on one connection).
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class RequestBodyReuseTest extends ServerTestBase {
    private static final String HOST = "Host: localhost\r\n";

    /** {@code length:text:remaining} of the request's body, and the method and the X-N field. */
    private static final Handler SEEN = (req, res) -> res.text(describe(req));
    /** The same of the request's copy: its bytes run from the method to the end of the body. */
    private static final Handler COPIED = (req, res) -> res.text("copy " + describe(req.copy()));

    RequestBodyReuseTest(ServerFactory factory) {
        super(factory);
    }

    private static String describe(Request req) {
        return req.method() + " " + req.header("X-N") + " " + req.bodyLength() + ":" + req.bodyString() + ":"
                + req.body().remaining();
    }

    @Override
    @BeforeEach
    void startServer() {
        server = factory.start(b -> b.http2(true)
                .get("/seen", SEEN).post("/seen", SEEN)
                .get("/copied", COPIED).post("/copied", COPIED)
                .get("/blocking", Handlers.blocking(SEEN)).post("/blocking", Handlers.blocking(SEEN)));
    }

    /** The requests in turn, with the answer each must get. */
    private static final class Script {
        final StringBuilder wire = new StringBuilder();
        final List<String> expected = new ArrayList<>();
        int n;

        Script get(String path) {
            n++;
            head("GET", path).append("\r\n");
            expected.add(prefix(path) + "GET " + n + " 0::0");
            return this;
        }

        Script post(String path, String body) {
            n++;
            head("POST", path).append("Content-Length: ").append(body.length()).append("\r\n\r\n").append(body);
            expected.add(prefix(path) + "POST " + n + " " + body.length() + ":" + body + ":" + body.length());
            return this;
        }

        Script chunked(String path, String... chunks) {
            n++;
            head("POST", path).append("Transfer-Encoding: chunked\r\n\r\n");
            String body = String.join("", chunks);
            for (String c : chunks) {
                wire.append(Integer.toHexString(c.length())).append("\r\n").append(c).append("\r\n");
            }
            wire.append("0\r\n\r\n");
            expected.add(prefix(path) + "POST " + n + " " + body.length() + ":" + body + ":" + body.length());
            return this;
        }

        /**
         * The request line and fields but the framing's: a padding field longer with each request (so the
         * head ends elsewhere each time: a copy cut at the head end of the request before loses its last
         * field), then X-N.
         */
        private StringBuilder head(String method, String path) {
            return wire.append(method).append(' ').append(path).append(" HTTP/1.1\r\n").append(HOST)
                    .append("X-Pad: ").append("p".repeat(1 + n % 9 * 30)).append("\r\nX-N: ").append(n).append("\r\n");
        }

        private static String prefix(String path) {
            return path.equals("/copied") ? "copy " : "";
        }
    }

    /** Bodies and no bodies alternating, on every route, a GET after each kind of body. */
    private static Script script() {
        Script s = new Script();
        for (String path : new String[]{"/seen", "/copied", "/blocking"}) {
            s.get(path).post(path, "hello").get(path).get(path)
                    .chunked(path, "abc", "de").get(path)
                    .post(path, "").get(path)
                    .post(path, "a longer body than the one before").get(path);
        }
        return s;
    }

    @Test
    void pipelinedInOneWriteEachHandlerSeesItsOwnBody() throws Exception {
        Script s = script();
        try (Socket socket = connect()) {
            socket.getOutputStream().write(RawClient.bytes(s.wire.toString()));
            InputStream in = socket.getInputStream();
            for (String want : s.expected) {
                RawResponse r = RawResponse.read(in);
                assertEquals(200, r.status, want);
                assertEquals(want, r.text());
            }
        }
    }

    @Test
    void oneAtATimeEachHandlerSeesItsOwnBody() throws Exception {
        Script all = script();
        String wire = all.wire.toString();
        try (Socket socket = connect()) {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            int from = 0;
            for (String want : all.expected) {
                int next = nextRequest(wire, from);
                out.write(RawClient.bytes(wire.substring(from, next)));
                RawResponse r = RawResponse.read(in);
                assertEquals(want, r.text());
                from = next;
            }
        }
    }

    /** Where the request that starts at {@code from} of {@code wire} ends (its framing as {@link Script} writes it). */
    private static int nextRequest(String wire, int from) {
        int headEnd = wire.indexOf("\r\n\r\n", from) + 4;
        String head = wire.substring(from, headEnd);
        int cl = head.indexOf("Content-Length: ");
        if (cl >= 0) {
            return headEnd + Integer.parseInt(head.substring(cl + 16, head.indexOf("\r\n", cl)));
        }
        if (head.contains("Transfer-Encoding: chunked")) {
            return wire.indexOf("0\r\n\r\n", headEnd) + 5;
        }
        return headEnd;
    }

    @Test
    void http2StreamsSeeTheirOwnBodiesSequentiallyAndMultiplexed() throws Exception {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        // The first request upgrades the connection (h2c); the rest are streams on it.
        assertEquals("GET 0 0::0", client.send(h2("/seen", "0", null), HttpResponse.BodyHandlers.ofString()).body());
        for (String path : new String[]{"/seen", "/copied", "/blocking"}) {
            String copy = path.equals("/copied") ? "copy " : "";
            HttpResponse<String> post = client.send(h2(path, "1", "hello"), HttpResponse.BodyHandlers.ofString());
            assertEquals(HttpClient.Version.HTTP_2, post.version());
            assertEquals(copy + "POST 1 5:hello:5", post.body());
            assertEquals(copy + "GET 2 0::0", client.send(h2(path, "2", null), HttpResponse.BodyHandlers.ofString()).body());
            List<CompletableFuture<HttpResponse<String>>> together = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                together.add(client.sendAsync(h2(path, Integer.toString(i), i % 2 == 0 ? "body" + i : null),
                        HttpResponse.BodyHandlers.ofString()));
            }
            for (int i = 0; i < 8; i++) {
                String want = i % 2 == 0 ? "POST " + i + " 5:body" + i + ":5" : "GET " + i + " 0::0";
                assertEquals(copy + want, together.get(i).join().body());
            }
        }
        assertEquals(1, server.metrics().accepted, "one connection for every stream");
    }

    private HttpRequest h2(String path, String n, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url(path))).header("X-N", n);
        return (body == null ? b.GET() : b.POST(HttpRequest.BodyPublishers.ofString(body))).build();
    }
}
