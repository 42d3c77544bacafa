package dev.peregrine;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Tests handlers without a socket, the way fasthttp's {@code InmemoryListener} or Netty's
 * {@code EmbeddedChannel} allow: the builder's routes and settings run in the real connection code
 * (the connection with the HTTP/1.1 protocol, the same parser, router and encoder as a server)
 * over an in-memory socket, on the calling thread: the engine's {@link ServerEngine.Wire}.
 * <pre>{@code
 * try (TestClient client = TestClient.of(Server.builder().get("/hi", (req, res) -> res.text("hi")))) {
 *     TestClient.Response r = client.get("/hi");
 *     assertEquals(200, r.status());
 *     assertEquals("hi", r.text());
 * }
 * }</pre>
 * Everything {@code start()} would serve is served: routes, filters, static files, and the
 * {@link Server.Builder#metricsEndpoint metrics} and {@link Server.Builder#healthEndpoints health}
 * endpoints (the metrics of this client's one loop; ready while it is open).
 * Blocking and async handlers work: their threads hand the response back to the calling thread,
 * which waits for it (at most {@link #timeout}). One connection at a time, kept alive between
 * requests as a client would; after a response with {@code Connection: close} the next request gets
 * a new one. Nothing here opens a port or starts a loop thread; outbound connects are not offered.
 *
 * <p>Thread: one thread at a time (the one calling); not thread-safe.
 */
public final class TestClient implements AutoCloseable {
    private final ServerEngine.Wire wire;
    private long timeoutMillis = 30_000;

    private TestClient(Server.Builder builder) {
        // The plan registers the metrics and health endpoints, as start() serves them.
        this.wire = ServerEngine.get().wire(builder.plan());
        builder.self.local = wire::metrics;
    }

    /** A client of {@code builder}'s routes and settings (the builder is not started). */
    public static TestClient of(Server.Builder builder) {
        return new TestClient(builder);
    }

    /** How long a request may wait for its response (handlers off the loop) before it fails; 30 s by default. */
    public TestClient timeout(java.time.Duration timeout) {
        this.timeoutMillis = timeout.toMillis();
        return this;
    }

    /** {@code GET path} with {@code Host: localhost}. */
    public Response get(String path) {
        return request("GET", path, null);
    }

    /**
     * One request: {@code method path}, {@code Host: localhost}, then {@code headers} (name, value
     * pairs) and {@code body} with its Content-Length when not null.
     */
    public Response request(String method, String path, byte[] body, String... headers) {
        StringBuilder head = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: localhost\r\n");
        for (int i = 0; i + 1 < headers.length; i += 2) {
            head.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        if (body != null) {
            head.append("Content-Length: ").append(body.length).append("\r\n");
        }
        head.append("\r\n");
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        if (body != null) {
            request.writeBytes(body);
        }
        List<Response> r = send(request.toByteArray(), 1, method.equals("HEAD"));
        return r.get(0);
    }

    /**
     * Sends raw bytes (any number of requests, valid or not) and returns the {@code expected}
     * responses they get, in order; fewer when the server closes the connection first.
     */
    public List<Response> send(String raw, int expected) {
        return send(raw.getBytes(StandardCharsets.ISO_8859_1), expected, false);
    }

    private List<Response> send(byte[] bytes, int expected, boolean head) {
        List<Response> out = new ArrayList<>(expected);
        for (ServerEngine.Reply r : wire.exchange(bytes, expected, head, timeoutMillis)) {
            out.add(new Response(r.status(), r.headers(), r.body()));
        }
        return out;
    }

    /** Closes the connection and the executor of blocking handlers. */
    @Override
    public void close() {
        wire.close();
    }

    /** One response as the client saw it. Immutable. */
    public static final class Response {
        private final int status;
        private final List<String[]> headers;
        private final byte[] body;

        private Response(int status, List<String[]> headers, byte[] body) {
            this.status = status;
            this.headers = headers;
            this.body = body;
        }

        public int status() {
            return status;
        }

        /** The first value of header {@code name} (any case), or null. */
        public String header(String name) {
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name)) {
                    return h[1];
                }
            }
            return null;
        }

        /** Every value of header {@code name} (any case), in order. */
        public List<String> headers(String name) {
            List<String> values = new ArrayList<>();
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name)) {
                    values.add(h[1]);
                }
            }
            return values;
        }

        public byte[] body() {
            return body.clone();
        }

        /** The body as UTF-8 text. */
        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return status + " " + text();
        }
    }
}
