package dev.peregrine.client;

import dev.peregrine.Execution;
import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.Handshake;
import dev.peregrine.WebSocketHandler;
import dev.peregrine.WebSocketOptions;
import dev.peregrine.websocket.WebSocketSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URI;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link WebSocketBuilder} over real sockets on every transport: extra fields reach the server's
 * handshake (a group filter checks {@code Authorization}, {@code onHandshake} reads the cookie and a
 * custom field) and the server's added {@code 101} fields do not disturb the client's checks; fields the
 * handshake owns, {@code Host}, framing fields and bad names or values throw at the call, and a
 * BLOCKING execution (a server's setting) is refused at {@code connect}.
 */
class WebSocketBuilderTest {
    static java.util.stream.Stream<Transport> transports() {
        return WebSocketClientTest.transports();
    }

    @ParameterizedTest
    @MethodSource("transports")
    void extraFieldsReachTheServersHandshake(Transport t) throws Exception {
        BlockingQueue<String> seen = new LinkedBlockingQueue<>();
        WebSocketHandler server = new WebSocketHandler() {
            @Override
            public void onHandshake(Handshake h) {
                seen.add(h.request().header("Authorization") + "|" + h.request().header("Cookie") + "|"
                        + h.request().header("X-Trace"));
                h.header("Set-Cookie", "seen=1");
            }
        };
        try (Server s = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t)
                .group("/api", g -> g
                        .filter((req, res, next) -> {
                            if (req.header("Authorization") == null) {
                                res.status(401).text("no\n");
                                return;
                            }
                            next.handle(req, res);
                        })
                        .websocket("/ws", server))
                .start();
             HttpClient client = HttpClient.builder().transport(t).build()) {
            URI uri = URI.create("ws://127.0.0.1:" + s.port() + "/api/ws");
            WebSocketClientTest.Recorder r = new WebSocketClientTest.Recorder();
            WebSocketSession session = client.webSocketBuilder(uri)
                    .header("Authorization", "Bearer abc")
                    .header("Cookie", "session=42")
                    .header("X-Trace", "t-1")
                    .options(WebSocketOptions.DEFAULTS.compression(false))
                    .connect(r).get(10, TimeUnit.SECONDS);
            assertEquals("open", r.next());
            assertEquals("Bearer abc|session=42|t-1", seen.poll(10, TimeUnit.SECONDS));
            session.close();
            assertEquals("close:1000:", r.next());

            // Without the field the group's filter answers 401: the future fails, phase RESPONSE.
            java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> client.webSocketBuilder(uri).connect(new WebSocketClientTest.Recorder()).get(10, TimeUnit.SECONDS));
            assertEquals(ClientException.Phase.RESPONSE, ((ClientException) e.getCause()).phase());
        }
    }

    @Test
    void fieldsTheHandshakeOwnsAndBadFieldsThrowAtTheCall() {
        try (HttpClient client = HttpClient.builder().build()) {
            WebSocketBuilder b = client.webSocketBuilder(URI.create("ws://127.0.0.1:1/ws"));
            for (String owned : new String[]{"Upgrade", "CONNECTION", "Sec-WebSocket-Key", "sec-websocket-version",
                    "Sec-WebSocket-Extensions", "Sec-WebSocket-Protocol", "Host", "Content-Length", "Transfer-Encoding",
                    "", "Bad Name", "X:y"}) {
                assertThrows(IllegalArgumentException.class, () -> b.header(owned, "v"), owned);
            }
            assertThrows(IllegalArgumentException.class, () -> b.header("X-A", "a\r\nX-B: b"));
            assertThrows(IllegalArgumentException.class, () -> b.header("X-A", "é"));
            assertThrows(NullPointerException.class, () -> b.header("X-A", null));
            assertThrows(IllegalArgumentException.class, () -> b.options(WebSocketOptions.DEFAULTS.execution(Execution.BLOCKING))
                    .connect(new WebSocketClientTest.Recorder()));
        }
    }
}
