package dev.peregrine.tls;

import dev.peregrine.Server;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** WebSocket over TLS ({@code wss}): the JDK client against the examples app's /ws/echo on the HTTPS port, every transport and provider. */
class WssTest {
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.peregrine.tls.TlsTesting#transportsAndProviders")
    void jdkClientEchoesOverTls(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = TlsTesting.start(transport, TlsTesting.tls(provider).build())) {
            LinkedBlockingQueue<Object> messages = new LinkedBlockingQueue<>();
            CompletableFuture<Integer> closed = new CompletableFuture<>();
            java.io.ByteArrayOutputStream binary = new java.io.ByteArrayOutputStream();
            WebSocket.Listener listener = new WebSocket.Listener() {
                @Override
                public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
                    messages.add(data.toString());
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
                public CompletionStage<?> onClose(WebSocket ws, int code, String reason) {
                    closed.complete(code);
                    return null;
                }
            };
            HttpClient client = HttpClient.newBuilder().sslContext(TlsTesting.clientContext(TlsTesting.CERT.certificate())).build();
            WebSocket ws = client.newWebSocketBuilder()
                    .buildAsync(URI.create("wss://localhost:" + server.httpsPort() + "/ws/echo"), listener).get(30, TimeUnit.SECONDS);
            ws.sendText("over TLS", true).get(30, TimeUnit.SECONDS);
            assertEquals("over TLS", messages.poll(30, TimeUnit.SECONDS));
            byte[] big = new byte[1 << 20];
            new Random(1).nextBytes(big);
            ws.sendBinary(ByteBuffer.wrap(big), true).get(30, TimeUnit.SECONDS);
            assertArrayEquals(big, (byte[]) messages.poll(30, TimeUnit.SECONDS));
            ws.sendClose(WebSocket.NORMAL_CLOSURE, "").get(30, TimeUnit.SECONDS);
            assertEquals(1000, closed.get(30, TimeUnit.SECONDS));
        }
    }
}
