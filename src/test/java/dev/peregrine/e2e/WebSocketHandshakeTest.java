package dev.peregrine.e2e;

import dev.peregrine.Server;
import dev.peregrine.testing.RawClient;
import dev.peregrine.Handshake;
import dev.peregrine.websocket.Payload;
import dev.peregrine.WebSocketHandler;
import dev.peregrine.websocket.WebSocketSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * WebSocket routes in a {@code RouteGroup} and the handshake's fields, over real sockets on every
 * transport: the group's prefix and filters apply to the handshake (a filter's 401 stops it, the
 * attribute a filter sets reaches {@code onHandshake}); {@code onHandshake} reads the request's fields
 * and path parameters, adds fields to the {@code 101} (a cookie) and attaches an object to the session;
 * the fields the handshake owns are refused at the call; a throwing {@code onHandshake} gets 500; the
 * JDK's client sends {@code Authorization} through the filter.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.testing.Transports#names")
class WebSocketHandshakeTest {
    private final String transport;
    private Server server;
    private final List<String> refused = new CopyOnWriteArrayList<>();
    private final AtomicReference<Handshake> kept = new AtomicReference<>();

    WebSocketHandshakeTest(String transport) {
        this.transport = transport;
    }

    @BeforeEach
    void start() {
        WebSocketHandler chat = new WebSocketHandler() {
            @Override
            public void onHandshake(Handshake h) {
                String room = h.request().pathParam("room");
                for (String owned : new String[]{"Upgrade", "connection", "Sec-WebSocket-Accept", "Sec-WebSocket-Protocol",
                        "Content-Length", "Bad Name"}) {
                    try {
                        h.header(owned, "x");
                    } catch (IllegalArgumentException e) {
                        refused.add(owned);
                    }
                }
                try {
                    h.header("X-Split", "a\r\nInjected: 1");
                } catch (IllegalArgumentException e) {
                    refused.add("CRLF");
                }
                h.header("Set-Cookie", "seen=1; Path=/; HttpOnly").header("X-Room", room);
                h.attach(h.request().attribute("user") + "/" + h.request().header("X-Client"));
                kept.set(h);
            }

            @Override
            public void onOpen(WebSocketSession s) {
                s.sendText("hello " + s.attachment() + " in " + s.pathParam("room"));
            }

            @Override
            public void onText(WebSocketSession s, Payload text) {
                s.send(text);
            }
        };
        server = Server.builder().host("127.0.0.1").port(0).transport(transport).threads(1)
                .shutdownGrace(Duration.ofSeconds(2))
                .group("/api", api -> api
                        .filter((req, res, next) -> {
                            String auth = req.header("Authorization");
                            if (auth == null || !auth.startsWith("Bearer ")) {
                                res.status(401).header("WWW-Authenticate", "Bearer").text("no token\n");
                                return;
                            }
                            req.attribute("user", auth.substring(7));
                            next.handle(req, res);
                        })
                        .websocket("/chat/{room}", chat)
                        .websocket("/broken", new WebSocketHandler() {
                            @Override
                            public void onHandshake(Handshake h) {
                                throw new IllegalStateException("a handler's bug (expected by the test)");
                            }
                        }))
                .start();
    }

    @AfterEach
    void stop() {
        try {
            ServerTestBase.awaitNoLentBuffers(server);
        } finally {
            server.close();
        }
    }

    @Test
    void aGroupFilterAnswering401StopsTheHandshake() throws IOException {
        try (Socket s = RawClient.connect(server.port())) {
            s.getOutputStream().write(WsRawClient.handshake("/api/chat/r1", "").getBytes(StandardCharsets.US_ASCII));
            String head = WsRawClient.readHead(s.getInputStream());
            assertTrue(head.startsWith("HTTP/1.1 401 "), head);
            assertTrue(head.contains("WWW-Authenticate: Bearer"), head);
        }
        assertTrue(refused.isEmpty(), "onHandshake ran behind a 401: " + refused);
    }

    @Test
    void onHandshakeReadsTheRequestAddsFieldsToThe101AndAttaches() throws IOException {
        try (WsRawClient c = WsRawClient.open(server.port(), "/api/chat/r1", "Authorization: Bearer alice\r\nX-Client: raw\r\n")) {
            assertTrue(c.head.contains("\r\nSet-Cookie: seen=1; Path=/; HttpOnly\r\n"), c.head);
            assertTrue(c.head.contains("\r\nX-Room: r1\r\n"), c.head);
            assertTrue(c.head.contains("Sec-WebSocket-Accept: " + WsRawClient.ACCEPT + "\r\n"), c.head);
            assertTrue(!c.head.contains("Injected"), c.head);
            assertEquals("hello alice/raw in r1", c.read().text());
            c.sendText("echo");
            assertEquals("echo", c.read().text());
        }
        assertEquals(List.of("Upgrade", "connection", "Sec-WebSocket-Accept", "Sec-WebSocket-Protocol", "Content-Length",
                "Bad Name", "CRLF"), refused);
        assertThrows(IllegalStateException.class, () -> kept.get().header("X-Late", "1")); // only during the callback
    }

    @Test
    void aThrowingOnHandshakeGets500() throws IOException {
        try (Socket s = RawClient.connect(server.port())) {
            s.getOutputStream().write(WsRawClient.handshake("/api/broken", "Authorization: Bearer bob\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            String head = WsRawClient.readHead(s.getInputStream());
            assertTrue(head.startsWith("HTTP/1.1 500 "), head);
        }
    }

    @Test
    void pythonWebsocketsSendsFieldsAndReadsThe101sCookie() throws Exception {
        java.nio.file.Path tools = WebSocketClientsTest.pythonTools();
        org.junit.jupiter.api.Assumptions.assumeTrue(tools != null,
                "Python websockets is not installed in .tools/python (scripts/lib/ensure-tools.sh installs it)");
        String script = """
                import sys
                sys.path.insert(0, sys.argv[2])
                from websockets.sync.client import connect
                with connect(sys.argv[1], additional_headers={'Authorization': 'Bearer py', 'X-Client': 'python'}) as ws:
                    print(ws.response.headers.get('Set-Cookie'))
                    print(ws.response.headers.get('X-Room'))
                    print(ws.recv())
                """;
        String out = WebSocketClientsTest.run(java.nio.file.Files.createTempDirectory("ws-py"), "python3", "-c", script,
                "ws://127.0.0.1:" + server.port() + "/api/chat/py", tools.toString());
        assertEquals("seen=1; Path=/; HttpOnly\npy\nhello py/python in py\n", out);
    }

    @Test
    void theJdkClientsAuthorizationPassesTheGroupFilter() throws Exception {
        WebSocketClientsTest.Collector got = new WebSocketClientsTest.Collector();
        WebSocket ws = java.net.http.HttpClient.newHttpClient().newWebSocketBuilder()
                .header("Authorization", "Bearer carol").header("X-Client", "jdk")
                .buildAsync(URI.create("ws://127.0.0.1:" + server.port() + "/api/chat/lobby"), got).get(30, TimeUnit.SECONDS);
        assertEquals("hello carol/jdk in lobby", got.next());
        ws.sendClose(WebSocket.NORMAL_CLOSURE, "").get(30, TimeUnit.SECONDS);
        assertEquals(1000, got.closed.get(30, TimeUnit.SECONDS));
    }
}
