package dev.peregrine.client;

import dev.peregrine.Transport;
import dev.peregrine.websocket.Payload;
import dev.peregrine.WebSocketHandler;
import dev.peregrine.WebSocketOptions;
import dev.peregrine.websocket.WebSocketSession;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Drives the client through Autobahn|Testsuite's fuzzing server ({@code wstest -m fuzzingserver}),
 * the way its docs describe an agent under test: {@code /getCaseCount}, then {@code /runCase?case=N}
 * for each case with an echo handler, then {@code /updateReports}. Runs only when
 * {@code -Dautobahn.url=ws://host:port} is given ({@code scripts/autobahn-client} starts the fuzzing
 * server, runs this and judges the report); otherwise it is skipped.
 */
class AutobahnFuzzingServerRun {
    private static final String AGENT = "peregrine";

    @Test
    void everyCase() throws Exception {
        String base = System.getProperty("autobahn.url");
        assumeTrue(base != null && !base.isEmpty(), "-Dautobahn.url not given");
        Transport t = Transport.valueOf(System.getProperty("autobahn.transport", "auto").toUpperCase(Locale.ROOT));
        // Autobahn's 9.x cases send messages up to 16 MiB; its limits cases expect them echoed.
        WebSocketOptions options = WebSocketOptions.DEFAULTS.maxFrameSize(64 << 20).maxMessageSize(64 << 20);
        try (HttpClient client = HttpClient.builder().transport(t).build()) {
            CompletableFuture<String> count = new CompletableFuture<>();
            client.webSocket(URI.create(base + "/getCaseCount"), options, new WebSocketHandler() {
                @Override
                public void onText(WebSocketSession s, Payload text) {
                    count.complete(text.text());
                }

                @Override
                public void onClose(WebSocketSession s, int code, String reason) {
                    count.complete("0");
                }
            });
            int n = Integer.parseInt(count.get(30, TimeUnit.SECONDS).trim());
            System.out.println("autobahn: " + n + " cases");
            for (int i = 1; i <= n; i++) {
                CompletableFuture<Integer> closed = new CompletableFuture<>();
                client.webSocket(URI.create(base + "/runCase?case=" + i + "&agent=" + AGENT), options, new WebSocketHandler() {
                    @Override
                    public void onText(WebSocketSession s, Payload text) {
                        s.send(text);
                    }

                    @Override
                    public void onBinary(WebSocketSession s, Payload data) {
                        s.send(data);
                    }

                    @Override
                    public void onClose(WebSocketSession s, int code, String reason) {
                        closed.complete(code);
                    }
                }).whenComplete((s, failure) -> {
                    if (failure != null) {
                        closed.complete(-1);
                    }
                });
                try {
                    closed.get(120, TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    System.out.println("autobahn: case " + i + " did not close within 120 s");
                }
            }
            CompletableFuture<Integer> updated = new CompletableFuture<>();
            client.webSocket(URI.create(base + "/updateReports?agent=" + AGENT), options, new WebSocketHandler() {
                @Override
                public void onClose(WebSocketSession s, int code, String reason) {
                    updated.complete(code);
                }
            });
            updated.get(120, TimeUnit.SECONDS);
        }
    }
}
