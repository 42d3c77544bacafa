package dev.peregrine;

import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Blocking and streaming are properties of the route: whatever wraps it (a filter, before, after, an
 * exception mapper, CORS, a group's filter) and however it was declared (the marker or an
 * {@link Execution}), the handler runs where it was declared to, its filters run on the same thread,
 * and the body limit is the route's ({@code maxBodySize} inline, {@code maxStreamedBodySize} for
 * blocking and streaming routes). Over a real socket, one loop.
 */
class ExecutionMatrixTest {
    private static final int MAX_BODY = 16 * 1024;
    private static final int STREAM_THRESHOLD = 8 * 1024;
    private static final int MAX_STREAMED = 1024 * 1024;
    /** Above maxBodySize, under maxStreamedBodySize: 413 inline, read whole off the loop or streamed. */
    private static final int BODY = 100 * 1024;

    enum Wrapping { FILTER, BEFORE, AFTER, EXCEPTION_MAPPER, CORS, GROUP }

    /** How a route is declared: its expected place, the path segment, and how to declare it. */
    enum Declared {
        INLINE_DEFAULT(false, h -> h),
        INLINE_EXECUTION(false, h -> h),
        BLOCKING_MARKER(true, Handlers::blocking),
        BLOCKING_EXECUTION(true, h -> h),
        STREAMING_MARKER(false, Handlers::streaming);

        final boolean offLoop;
        final UnaryOperator<Handler> mark;

        Declared(boolean offLoop, UnaryOperator<Handler> mark) {
            this.offLoop = offLoop;
            this.mark = mark;
        }

        String path() {
            return "/" + name().toLowerCase(java.util.Locale.ROOT);
        }

        boolean bodyOverMaxAccepted() {
            return this == BLOCKING_MARKER || this == BLOCKING_EXECUTION || this == STREAMING_MARKER;
        }
    }

    static final class Mapped extends RuntimeException {
        Mapped() {
            super("mapped");
        }
    }

    private static String thread() {
        return Thread.currentThread().getName();
    }

    private static boolean onLoop(String thread) {
        return thread.startsWith("peregrine-nio-") || thread.startsWith("peregrine-epoll-");
    }

    /** Counts the body however it comes and answers its size and the handler's thread. */
    private static Handler handler(Declared d) {
        if (d == Declared.STREAMING_MARKER) {
            return (req, res) -> {
                String t = thread();
                Completion done = res.async();
                long[] n = {0};
                req.onBody(new BodyListener() {
                    @Override
                    public void onData(ByteBuffer data) {
                        n[0] += data.remaining();
                    }

                    @Override
                    public void onEnd() {
                        done.response().header("X-Handler-Thread", t).text("read " + n[0]);
                        done.complete();
                    }
                });
            };
        }
        return (req, res) -> {
            res.header("X-Handler-Thread", thread());
            if (req.header("X-Throw") != null) {
                throw new Mapped();
            }
            long n = req.bodyStreamed() ? req.bodyStream().readAllBytes().length : req.bodyLength();
            res.text("read " + n);
        };
    }

    private static Filter recorder() {
        return (req, res, next) -> {
            res.header("X-Filter-Thread", thread());
            next.handle(req, res);
        };
    }

    private static Server start(Wrapping w) {
        Server.Builder b = Server.builder().port(0).threads(1)
                .maxBodySize(MAX_BODY).streamBodyThreshold(STREAM_THRESHOLD).maxStreamedBodySize(MAX_STREAMED);
        switch (w) {
            case FILTER -> b.filter(recorder());
            case BEFORE -> b.before((req, res) -> res.header("X-Filter-Thread", thread()));
            case AFTER -> b.after((req, res) -> res.header("X-Filter-Thread", thread()));
            case EXCEPTION_MAPPER -> b.exception(Mapped.class, (e, req, res) ->
                    res.status(409).header("X-Filter-Thread", thread()).text("mapped"));
            case CORS -> b.filter(Cors.builder().allowOrigins("https://app.example").build()).filter(recorder());
            case GROUP -> { }
        }
        List<Declared> all = List.of(Declared.values());
        if (w == Wrapping.GROUP) {
            b.group("/g", g -> {
                g.filter(recorder());
                for (Declared d : all) {
                    register(g, d);
                }
            });
        } else {
            for (Declared d : all) {
                register(b, d);
            }
        }
        return b.start();
    }

    private static void register(Server.Builder b, Declared d) {
        Handler h = d.mark.apply(handler(d));
        switch (d) {
            case INLINE_EXECUTION -> {
                b.get(d.path(), Execution.LOOP, h);
                b.post(d.path(), Execution.LOOP, h);
            }
            case BLOCKING_EXECUTION -> {
                b.get(d.path(), Execution.BLOCKING, h);
                b.post(d.path(), Execution.BLOCKING, h);
            }
            default -> {
                b.get(d.path(), h);
                b.post(d.path(), h);
            }
        }
    }

    private static void register(RouteGroup g, Declared d) {
        Handler h = d.mark.apply(handler(d));
        switch (d) {
            case INLINE_EXECUTION -> {
                g.get(d.path(), Execution.LOOP, h);
                g.post(d.path(), Execution.LOOP, h);
            }
            case BLOCKING_EXECUTION -> {
                g.get(d.path(), Execution.BLOCKING, h);
                g.post(d.path(), Execution.BLOCKING, h);
            }
            default -> {
                g.get(d.path(), h);
                g.post(d.path(), h);
            }
        }
    }

    private static RawResponse exchange(int port, String head, byte[] body) throws Exception {
        try (RawClient c = new RawClient(port)) {
            c.send(head);
            if (body != null) {
                c.send(body);
            }
            return c.read();
        }
    }

    @Test
    void everyWrappingKeepsTheRoutesExecutionAndBodyLimit() throws Exception {
        List<String> failures = new ArrayList<>();
        for (Wrapping w : Wrapping.values()) {
            try (Server s = start(w)) {
                String prefix = w == Wrapping.GROUP ? "/g" : "";
                for (Declared d : Declared.values()) {
                    String cell = w + " x " + d;
                    String origin = w == Wrapping.CORS ? "Origin: https://app.example\r\n" : "";
                    RawResponse get = exchange(s.port(), "GET " + prefix + d.path() + " HTTP/1.1\r\nHost: a\r\n" + origin
                            + "Connection: close\r\n\r\n", null);
                    String handlerThread = get.header("X-Handler-Thread");
                    check(failures, cell + ": GET answered", 200, get.status);
                    check(failures, cell + ": handler ran off the loop", d.offLoop, handlerThread != null && !onLoop(handlerThread));
                    if (w != Wrapping.EXCEPTION_MAPPER) {
                        check(failures, cell + ": filter ran on the handler's thread", handlerThread, get.header("X-Filter-Thread"));
                    }
                    if (w == Wrapping.CORS) {
                        check(failures, cell + ": CORS answered", "https://app.example", get.header("Access-Control-Allow-Origin"));
                    }
                    if (w == Wrapping.EXCEPTION_MAPPER && d != Declared.STREAMING_MARKER) {
                        RawResponse mapped = exchange(s.port(), "GET " + prefix + d.path() + " HTTP/1.1\r\nHost: a\r\nX-Throw: 1\r\n"
                                + "Connection: close\r\n\r\n", null);
                        check(failures, cell + ": mapped", 409, mapped.status);
                        check(failures, cell + ": mapper ran on the handler's thread", handlerThread == null ? null : onLoop(handlerThread),
                                mapped.header("X-Filter-Thread") == null ? null : onLoop(mapped.header("X-Filter-Thread")));
                    }
                    RawResponse post = exchange(s.port(), "POST " + prefix + d.path() + " HTTP/1.1\r\nHost: a\r\n" + origin
                            + "Content-Length: " + BODY + "\r\n\r\n", new byte[BODY]);
                    if (d.bodyOverMaxAccepted()) {
                        check(failures, cell + ": maxStreamedBodySize applied", 200, post.status);
                        check(failures, cell + ": body read", "read " + BODY, post.text());
                    } else {
                        check(failures, cell + ": maxBodySize applied", 413, post.status);
                    }
                }
            }
        }
        assertTrue(failures.isEmpty(), failures.size() + " cells failed:\n" + String.join("\n", failures));
    }

    private static void check(List<String> failures, String what, Object expected, Object actual) {
        if (!java.util.Objects.equals(expected, actual)) {
            failures.add(what + ": expected " + expected + ", got " + actual);
        }
    }

    @Test
    void aBlockedRouteDoesNotStallAnInlineOneBehindAFilter() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try (Server s = Server.builder().port(0).threads(1).filter(recorder())
                .get("/slow", Handlers.blocking((req, res) -> {
                    release.await();
                    res.text("slow");
                }))
                .get("/fast", (req, res) -> res.text("fast"))
                .start();
             RawClient slow = new RawClient(s.port())) {
            slow.send("GET /slow HTTP/1.1\r\nHost: a\r\n\r\n");
            RawResponse fast = exchange(s.port(), "GET /fast HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", null);
            assertEquals("fast", fast.text(), "the inline route answered while the blocking one waits off the loop");
            release.countDown();
            assertEquals("slow", slow.read().text());
        }
    }

    @Test
    void theServersDefaultYieldsToTheRoutesOwnDeclaration() throws Exception {
        try (Server s = Server.builder().port(0).threads(1).execution(Execution.BLOCKING).filter(recorder())
                .maxBodySize(MAX_BODY).streamBodyThreshold(STREAM_THRESHOLD).maxStreamedBodySize(MAX_STREAMED)
                .get("/default", handler(Declared.INLINE_DEFAULT))
                .get("/loop", Execution.LOOP, handler(Declared.INLINE_EXECUTION))
                .get("/streaming", Handlers.streaming(handler(Declared.STREAMING_MARKER)))
                .get("/marked", Execution.LOOP, Handlers.blocking(handler(Declared.BLOCKING_MARKER)))
                .start()) {
            String[][] cases = {{"/default", "off"}, {"/loop", "loop"}, {"/streaming", "loop"}, {"/marked", "off"}};
            for (String[] c : cases) {
                RawResponse r = exchange(s.port(), "GET " + c[0] + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", null);
                assertEquals(200, r.status, c[0]);
                assertEquals(c[1], onLoop(r.header("X-Handler-Thread")) ? "loop" : "off", c[0]);
                assertEquals(r.header("X-Handler-Thread"), r.header("X-Filter-Thread"), c[0] + ": the filter ran with the handler");
            }
        }
    }
}
