package dev.peregrine.web;

import dev.peregrine.Completion;
import dev.peregrine.Cookies;
import dev.peregrine.Handler;
import dev.peregrine.Handlers;
import dev.peregrine.Headers;
import dev.peregrine.Params;
import dev.peregrine.Request;
import dev.peregrine.RequestDecoding;
import dev.peregrine.Server;
import dev.peregrine.cookie.CookieCursor;
import dev.peregrine.form.FormCursor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The request's accessor groups ({@code req.headers()}, {@code query()}, {@code form()},
 * {@code cookies()}) over real sockets, with the JDK HttpClient: every method with present, absent,
 * repeated, percent-encoded and differently cased names, over HTTP/1.1 and HTTP/2 streams, in inline,
 * blocking and async handlers, on a {@code req.copy()} read after the exchange on another thread, on a
 * gzip-decoded request ({@code RequestDecoding}), and refused (as the request itself is) from a body
 * producer that runs after the handler returned.
 */
class RequestGroupsTest {
    private static final String QUERY = "name=J%C3%BCrgen&x=a+b&x=second&flag&sp%20ace=1&pct=100%25";
    /** What {@link #describe} answers for {@link #QUERY} and the fields {@link #get} sends, whatever the protocol. */
    private static final String EXPECTED = String.join("\n",
            "h.get=one h.getCase=one h.view=MiXed h.viewLength=5",
            "h.has=true,true,false h.absent=null,null",
            "h.all=[one, two] h.allCase=[one, two] h.allAbsent=[]",
            "h.indexed=[one, two] h.sizeOk=true h.outOfRange=refused,refused",
            "q.get=Jürgen|a b||1|100%|null q.raw=" + QUERY,
            "q.all=[a b, second] q.allAbsent=[]",
            "q.map={name=[Jürgen], x=[a b, second], flag=[], sp ace=[1], pct=[100%]}",
            "q.pairs=6 q.pairsAfterGet=6",
            "c.get=abc|dark|null c.map={sid=abc, theme=dark} c.cursor=sid,theme,sid",
            "");

    private Server server;
    private final AtomicReference<Request> kept = new AtomicReference<>();
    private final AtomicReference<String> late = new AtomicReference<>();

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** Every group method, written one line per group, in a form that does not depend on the protocol. */
    static String describe(Request req) {
        StringBuilder s = new StringBuilder();
        Headers h = req.headers();
        s.append("h.get=").append(h.get("X-Rep")).append(" h.getCase=").append(h.get("x-REP"))
                .append(" h.view=").append(h.view("X-Case")).append(" h.viewLength=").append(h.view("x-case").length()).append('\n');
        s.append("h.has=").append(h.has("x-rep")).append(',').append(h.has("X-CASE")).append(',').append(h.has("X-Absent"))
                .append(" h.absent=").append(h.get("X-Absent")).append(',').append(h.view("X-Absent")).append('\n');
        s.append("h.all=").append(h.all("X-Rep")).append(" h.allCase=").append(h.all("x-rep"))
                .append(" h.allAbsent=").append(h.all("X-Absent")).append('\n');
        List<String> indexed = new ArrayList<>();
        for (int i = 0; i < h.size(); i++) {
            if (h.name(i).toString().equalsIgnoreCase("x-rep")) {
                indexed.add(h.value(i).toString());
            }
        }
        s.append("h.indexed=").append(indexed).append(" h.sizeOk=").append(h.size() >= 4)
                .append(" h.outOfRange=").append(refused(() -> h.name(h.size()))).append(',').append(refused(() -> h.value(-1))).append('\n');
        Params q = req.query();
        s.append("q.get=").append(q.get("name")).append('|').append(q.get("x")).append('|').append(q.get("flag")).append('|')
                .append(q.get("sp ace")).append('|').append(q.get("pct")).append('|').append(q.get("absent"))
                .append(" q.raw=").append(req.rawQuery()).append('\n');
        s.append("q.all=").append(q.all("x")).append(" q.allAbsent=").append(q.all("absent")).append('\n');
        s.append("q.map=").append(q.map()).append('\n');
        int pairs = 0;
        FormCursor c = q.pairs();
        while (c.next()) {
            pairs++;
            if (pairs == 2) {
                q.get("name"); // a lookup in the middle does not move the handler's cursor
            }
        }
        s.append("q.pairs=").append(pairs).append(" q.pairsAfterGet=").append(count(q.pairs())).append('\n');
        Cookies k = req.cookies();
        s.append("c.get=").append(k.get("sid")).append('|').append(k.get("theme")).append('|').append(k.get("absent"))
                .append(" c.map=").append(k.map()).append(" c.cursor=");
        CookieCursor cc = k.cursor();
        for (int i = 0; cc.next(); i++) {
            s.append(i == 0 ? "" : ",").append(cc.nameView());
        }
        return s.append('\n').toString();
    }

    private static int count(FormCursor c) {
        int n = 0;
        while (c.next()) {
            n++;
        }
        return n;
    }

    private static String refused(Supplier<?> call) {
        try {
            return "answered " + call.get();
        } catch (IndexOutOfBoundsException e) {
            return "refused";
        }
    }

    private static String form(Request req) {
        Params f = req.form();
        StringBuilder s = new StringBuilder();
        s.append(f.get("a")).append('|').append(f.get("b")).append('|').append(f.get("c")).append('|').append(f.get("absent"))
                .append(' ').append(f.all("a")).append(' ').append(f.all("absent")).append(' ').append(f.map())
                .append(' ').append(count(f.pairs()));
        return s.toString();
    }

    /** Each group's methods called from a body producer, after the handler returned: how many were refused. */
    private Handler lateReader() {
        return (req, res) -> {
            Headers h = req.headers();
            Params q = req.query();
            Params f = req.form();
            Cookies k = req.cookies();
            List<Supplier<?>> calls = List.of(() -> h.get("X-Rep"), () -> h.view("X-Rep"), () -> h.has("X-Rep"), h::size,
                    () -> h.name(0), () -> h.value(0), () -> h.all("X-Rep"), () -> q.get("x"), () -> q.all("x"), q::map,
                    q::pairs, () -> f.get("a"), () -> f.all("a"), f::map, f::pairs, () -> k.get("sid"), k::map, k::cursor,
                    req::headers, req::query, req::form, req::cookies, () -> req.header("X-Rep"), req::rawQuery);
            res.stream(out -> {
                int refused = 0;
                for (Supplier<?> call : calls) {
                    try {
                        call.get();
                    } catch (IllegalStateException e) {
                        refused++;
                    }
                }
                late.set(refused + "/" + calls.size());
                out.put("done".getBytes(StandardCharsets.US_ASCII));
                return false;
            });
        };
    }

    private void start(boolean http2) {
        server = Server.builder().host("127.0.0.1").port(0).threads(1).http2(http2)
                .get("/g", (req, res) -> res.text(describe(req)))
                .get("/g/blocking", Handlers.blocking((req, res) -> res.text(describe(req))))
                .get("/g/async", (req, res) -> {
                    Completion done = res.async();
                    CompletableFuture.runAsync(() -> {
                        done.response().text(describe(done.request()));
                        done.complete();
                    });
                })
                .get("/g/copy", (req, res) -> {
                    kept.set(req.copy());
                    res.text("kept");
                })
                .post("/form", (req, res) -> res.text(form(req)))
                .post("/form/blocking", Handlers.blocking((req, res) -> res.text(form(req))))
                .post("/form/gzip", RequestDecoding.gzip(1 << 20, (req, res) -> res.text(form(req) + " "
                        + req.headers().has("Content-Encoding") + "," + req.headers().view("content-encoding") + ","
                        + req.headers().all("Content-Encoding") + "," + req.header("Content-Encoding") + ","
                        + indexedNames(req.headers()) + "," + req.headers().get("Content-Type"))))
                .get("/late", lateReader())
                .start();
    }

    private static String indexedNames(Headers h) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < h.size(); i++) {
            String name = h.name(i).toString().toLowerCase(java.util.Locale.ROOT);
            if (name.equals("content-type") || name.equals("content-encoding")) {
                s.append(name).append(';');
            }
        }
        return s.toString();
    }

    private static HttpClient client(HttpClient.Version version) {
        return HttpClient.newBuilder().version(version).connectTimeout(Duration.ofSeconds(20)).build();
    }

    private HttpResponse<String> get(HttpClient client, String path) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path + "?" + QUERY))
                .header("X-Rep", "one").header("X-Case", "MiXed").header("x-rep", "two")
                .header("Cookie", "sid=abc; theme=dark").header("Cookie", "sid=second")
                .timeout(Duration.ofSeconds(20)).GET().build();
        return client.send(r, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private HttpResponse<String> post(HttpClient client, String path, String type, byte[] body, String coding) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(20)).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (type != null) {
            r.header("Content-Type", type);
        }
        if (coding != null) {
            r.header("Content-Encoding", coding);
        }
        return client.send(r.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private void everyGroupMethod(HttpClient.Version version) throws Exception {
        start(version == HttpClient.Version.HTTP_2);
        HttpClient client = client(version);
        get(client, "/g"); // over HTTP/2: the h2c upgrade's request; the next ones are streams
        for (String path : List.of("/g", "/g/blocking", "/g/async")) {
            HttpResponse<String> r = get(client, path);
            assertEquals(version, r.version(), path);
            assertEquals(200, r.statusCode(), path);
            assertEquals(EXPECTED, r.body(), path);
        }
    }

    @Test
    void everyGroupMethodOverHttp1() throws Exception {
        everyGroupMethod(HttpClient.Version.HTTP_1_1);
    }

    @Test
    void everyGroupMethodOverHttp2Streams() throws Exception {
        everyGroupMethod(HttpClient.Version.HTTP_2);
    }

    /** A copy's groups are its own: read on the test's thread after the exchange, they answer the same. */
    @Test
    void aCopysGroupsOutliveTheExchange() throws Exception {
        start(false);
        HttpClient client = client(HttpClient.Version.HTTP_1_1);
        assertEquals("kept", get(client, "/g/copy").body());
        get(client, "/g"); // the loop's view now holds another request
        Request copy = kept.get();
        assertNotNull(copy);
        assertEquals(EXPECTED, describe(copy));
    }

    private void forms(HttpClient.Version version) throws Exception {
        start(version == HttpClient.Version.HTTP_2);
        HttpClient client = client(version);
        get(client, "/g"); // over HTTP/2: the h2c upgrade (a request with a body is not upgraded)
        byte[] body = "a=1&b=x%20y&a=2&c&a=caf%C3%A9".getBytes(StandardCharsets.US_ASCII);
        String expected = "1|x y||null [1, 2, café] [] {a=[1, 2, café], b=[x y], c=[]} 5";
        for (String path : List.of("/form", "/form", "/form/blocking")) {
            HttpResponse<String> r = post(client, path, "application/x-www-form-urlencoded; charset=UTF-8", body, null);
            assertEquals(version, r.version(), path);
            assertEquals(200, r.statusCode(), path);
            assertEquals(expected, r.body(), path);
            r = post(client, path, "text/plain", body, null); // not a form: 415, as before
            assertEquals(415, r.statusCode(), path);
            r = post(client, path, null, new byte[0], null); // neither a type nor a body: no fields
            assertEquals(200, r.statusCode(), path);
            assertEquals("null|null|null|null [] [] {} 0", r.body(), path);
        }
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write(body);
        }
        HttpResponse<String> r = post(client, "/form/gzip", "application/x-www-form-urlencoded", gz.toByteArray(), "gzip");
        assertEquals(version, r.version());
        assertEquals(200, r.statusCode());
        // The decoded request: its form reads the decoded body; Content-Encoding reads as absent everywhere.
        assertEquals(expected + " false,null,[],null,content-type;,application/x-www-form-urlencoded", r.body());
    }

    @Test
    void formsOverHttp1() throws Exception {
        forms(HttpClient.Version.HTTP_1_1);
    }

    @Test
    void formsOverHttp2Streams() throws Exception {
        forms(HttpClient.Version.HTTP_2);
    }

    /** Every group method (and the group getters) throws once the handler returned, as the request's own methods do. */
    @Test
    void groupsRefuseUseAfterTheExchange() throws Exception {
        start(false);
        HttpResponse<String> r = get(client(HttpClient.Version.HTTP_1_1), "/late");
        assertEquals("done", r.body());
        assertEquals("24/24", late.get());
    }
}
