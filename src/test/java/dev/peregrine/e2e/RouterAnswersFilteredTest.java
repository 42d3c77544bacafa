package dev.peregrine.e2e;

import dev.peregrine.Execution;
import dev.peregrine.Server;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The router's own answers — 404, 405, 501, 400 for an unsafe parameter, the automatic OPTIONS (also
 * {@code OPTIONS *}) and HEAD served by GET — run inside the filters and after-hooks like any route,
 * on the loop or, when the server's default is blocking, off it; requests the parser rejects reach no
 * filter.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class RouterAnswersFilteredTest extends ServerTestBase {
    private final AtomicInteger filtered = new AtomicInteger();
    private final Set<String> filterThreads = ConcurrentHashMap.newKeySet();

    RouterAnswersFilteredTest(ServerFactory factory) {
        super(factory);
    }

    private void restart(UnaryOperator<Server.Builder> settings) {
        server.close();
        server = factory.start(b -> settings.apply(b)
                .filter((req, res, next) -> {
                    filtered.incrementAndGet();
                    filterThreads.add(Thread.currentThread().getName());
                    res.header("X-Filtered", "yes");
                    next.handle(req, res);
                })
                .after((req, res) -> res.header("X-After", String.valueOf(((dev.peregrine.exchange.ResponseView) res).statusCode())))
                .get("/files/{name}", (req, res) -> res.text(req.pathParam("name"))));
    }

    private RawResponse once(String request) throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(RawClient.bytes(request));
            return RawResponse.read(s.getInputStream(), request.startsWith("HEAD"));
        }
    }

    private void assertFiltered(String request, int status) throws Exception {
        int before = filtered.get();
        RawResponse r = once(request);
        assertEquals(status, r.status, request);
        assertEquals("yes", r.header("X-Filtered"), request);
        assertEquals(String.valueOf(status), r.header("X-After"), "the after hook saw the router's answer: " + request);
        assertEquals(before + 1, filtered.get(), "the filter ran once: " + request);
    }

    private void everyRouterAnswer() throws Exception {
        assertFiltered("GET /missing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404);
        assertFiltered("DELETE /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 405);
        assertFiltered("BREW /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 501);
        assertFiltered("GET /files/%2e%2e HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 400);
        assertFiltered("OPTIONS /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 204);
        assertFiltered("OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 204);
        assertFiltered("HEAD /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 200);
    }

    @Test
    void onTheLoop() throws Exception {
        restart(b -> b);
        everyRouterAnswer();
        assertTrue(filterThreads.stream().allMatch(n -> n.startsWith(factory.loopThreadPrefix)), filterThreads::toString);
    }

    @Test
    void offTheLoopWhenTheServerDefaultIsBlocking() throws Exception {
        restart(b -> b.execution(Execution.BLOCKING));
        everyRouterAnswer();
        assertTrue(filterThreads.stream().noneMatch(n -> n.startsWith(factory.loopThreadPrefix)),
                () -> "a filter that may block never runs on a loop: " + filterThreads);
    }

    @Test
    void aBeforeHookGuardsUnknownPathsTooAndTheCustomNotFoundIsFiltered() throws Exception {
        restart(b -> b.before((req, res) -> {
            if (req.header("Authorization") == null) {
                res.error(401);
            }
        }).notFound((req, res) -> res.status(404).rawJson("{\"error\":\"none\"}")));
        HttpResponse<String> anonymous = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/secret-path"))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(401, anonymous.statusCode(), "no probing for paths without credentials");
        HttpResponse<String> known = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/secret-path")))
                .header("Authorization", "x").build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(404, known.statusCode());
        assertEquals("{\"error\":\"none\"}", known.body());
        assertEquals(List.of("yes"), known.headers().allValues("X-Filtered"));
    }

    @Test
    void parserRejectionsReachNoFilter() throws Exception {
        restart(b -> b);
        RawResponse r = once("GET /plaintext HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n");
        assertEquals(400, r.status);
        assertNull(r.header("X-Filtered"));
        assertEquals(0, filtered.get());
    }
}
