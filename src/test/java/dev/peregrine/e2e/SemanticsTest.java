package dev.peregrine.e2e;

import dev.peregrine.Server;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Routing answers, HEAD, OPTIONS, connection management by version and header, handler failures. */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class SemanticsTest extends ServerTestBase {

    SemanticsTest(ServerFactory factory) {
        super(factory);
    }

    private RawResponse once(String request, boolean head) throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(RawClient.bytes(request));
            return RawResponse.read(s.getInputStream(), head);
        }
    }

    @Test
    void unknownPathIs404AndOtherMethodIs405WithAllow() throws Exception {
        HttpResponse<String> missing = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/missing"))).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(404, missing.statusCode());
        HttpResponse<String> wrong = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/plaintext")))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, wrong.statusCode());
        assertEquals("GET, HEAD, OPTIONS", wrong.headers().firstValue("Allow").orElseThrow());
        RawResponse echoGet = once("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n", false);
        assertEquals(405, echoGet.status);
        assertEquals("POST, OPTIONS", echoGet.header("Allow"));
        assertEquals(501, once("BREW /plaintext HTTP/1.1\r\nHost: x\r\n\r\n", false).status);
    }

    @Test
    void headHasTheLengthButNoBody() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(RawClient.bytes("HEAD /plaintext HTTP/1.1\r\nHost: x\r\n\r\nGET /json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
            List<RawResponse> rs = RawResponse.readAll(s.getInputStream().readAllBytes(), true, false);
            assertEquals(2, rs.size());
            assertEquals("13", rs.get(0).header("Content-Length"));
            assertEquals(0, rs.get(0).body.length);
            assertEquals("{\"message\":\"Hello, World!\"}", rs.get(1).text(), "the HEAD response carried no body bytes");
        }
        HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/big"))).method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        assertEquals(Integer.toString(TestRoutes.BIG.length), r.headers().firstValue("Content-Length").orElseThrow());
    }

    @Test
    void optionsStarAndOptionsPath() throws Exception {
        RawResponse star = once("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", false);
        assertEquals(204, star.status);
        assertEquals("GET, HEAD, POST, PUT, OPTIONS", star.header("Allow"));
        assertNull(star.header("Content-Length"));
        RawResponse path = once("OPTIONS /echo HTTP/1.1\r\nHost: x\r\n\r\n", false);
        assertEquals(204, path.status);
        assertEquals("POST, OPTIONS", path.header("Allow"));
    }

    @Test
    void http10ClosesUnlessAskedToKeepAlive() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(RawClient.bytes("GET /plaintext HTTP/1.0\r\n\r\n"));
            List<RawResponse> rs = RawResponse.readAll(s.getInputStream().readAllBytes());
            assertEquals(1, rs.size());
            assertEquals("close", rs.get(0).header("Connection"));
            assertEquals("Hello, World!", rs.get(0).text());
        }
        try (Socket s = connect()) {
            InputStream in = s.getInputStream();
            for (int i = 0; i < 3; i++) {
                s.getOutputStream().write(RawClient.bytes("GET /headers HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
                RawResponse r = RawResponse.read(in);
                assertEquals("keep-alive", r.header("Connection"));
                assertEquals("host=null x=null count=1 keepAlive=true version=HTTP/1.0", r.text());
            }
            s.getOutputStream().write(RawClient.bytes("GET /plaintext HTTP/1.0\r\n\r\n"));
            assertEquals("close", RawResponse.read(in).header("Connection"));
            assertEquals(-1, in.read(), "closed after the 1.0 request without keep-alive");
        }
    }

    @Test
    void connectionCloseIsHonouredAndLaterRequestsAreIgnored() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(RawClient.bytes("GET /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /json HTTP/1.1\r\nHost: x\r\n\r\n"));
            List<RawResponse> rs = RawResponse.readAll(s.getInputStream().readAllBytes());
            assertEquals(1, rs.size(), rs::toString);
            assertEquals("close", rs.get(0).header("Connection"));
        }
    }

    @Test
    void aFailingHandlerGets500AndTheServerLivesOn() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(RawClient.bytes("GET /boom HTTP/1.1\r\nHost: x\r\n\r\nGET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n"));
            RawResponse failed = RawResponse.read(s.getInputStream());
            assertEquals(500, failed.status);
            assertEquals("500 Internal Server Error\n", failed.text(), "the one body of the server's own errors");
            assertEquals("Hello, World!", RawResponse.read(s.getInputStream()).text(), "same connection goes on");
        }
        HttpResponse<String> next = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/plaintext"))).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals("Hello, World!", next.body(), "another connection works");
        assertEquals(1, server.metrics().handlerErrors);
    }

    @Test
    void pathAndQueryParameters() throws Exception {
        HttpResponse<String> p = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/users/42/posts/hello%20world"))).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals("id=42 slug=hello world", p.body());
        HttpResponse<String> q = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/query?name=J%C3%BCrgen&x=a+b&x=c&empty"))).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals("name=J\u00fcrgen x=a b empty= missing=null", q.body());
        assertEquals(404, CLIENT.send(HttpRequest.newBuilder(URI.create(url("/users/42/posts/"))).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
    }

    @Test
    void remoteAddressIsThePeers() throws Exception {
        assertEquals("127.0.0.1", once("GET /remote HTTP/1.1\r\nHost: x\r\n\r\n", false).text());
    }

    @Test
    void withHttp2OffTheDefaultJdkClientsH2cUpgradeOfferIsIgnored() throws Exception {
        try (Server off = factory.start(b -> b.http2(false))) {
            HttpClient h2 = HttpClient.newHttpClient();
            HttpResponse<String> r = h2.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + off.port() + "/plaintext")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(HttpClient.Version.HTTP_1_1, r.version());
            assertEquals("Hello, World!", r.body());
            assertTrue(r.headers().firstValue("Upgrade").isEmpty());
        }
    }
}
