package dev.peregrine.examples;

import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * client → proxy A (http in, teleport out) → proxy B (teleport in, http out) → two plaintext apps, one
 * of which is killed mid-run: no client error but for requests in flight to it when it died.
 */
class TeleportProxyTest {
    private static TeleportProxy proxy(String... args) {
        return new TeleportProxy(TeleportProxy.Options.parse(args));
    }

    @Test
    void httpToTeleportToHttpWithAnUpstreamKilledMidRun() throws Exception {
        Server app1 = PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1).start();
        Server app2 = PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1).start();
        TeleportProxy b = proxy("--in-type", "teleport", "--in", "127.0.0.1:0", "--in-delay", "1", "--out-type", "http",
                "--out", "127.0.0.1:" + app1.port() + ",127.0.0.1:" + app2.port(), "--threads", "1");
        TeleportProxy a = proxy("--in-type", "http", "--in", "127.0.0.1:0", "--out-type", "teleport",
                "--out", "127.0.0.1:" + b.server.teleportPort(), "--out-delay", "1", "--out-compress", "lz4",
                "--client-ip-header", "X-Forwarded-For",
                "--threads", "1");
        try {
            HttpClient jdk = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + a.server.port();
            // The first calls may find the teleport connection still opening (CONNECT, answered 502): wait it out.
            Await.until("the chain answers", () -> status(jdk, base + "/plaintext") == 200);
            HttpResponse<String> r = jdk.send(HttpRequest.newBuilder(URI.create(base + "/plaintext")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals("Hello, World!", r.body());
            assertEquals(List.of("1.1 peregrine-teleport-proxy, 1.1 peregrine-teleport-proxy"),
                    List.of(String.join(", ", r.headers().allValues("Via"))), "Via from each proxy");
            HttpResponse<String> echo = jdk.send(HttpRequest.newBuilder(URI.create(base + "/echo"))
                    .POST(HttpRequest.BodyPublishers.ofString("x".repeat(5000))).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals("x".repeat(5000), echo.body());
            curl(base);

            AtomicInteger errors = new AtomicInteger();
            AtomicInteger ok = new AtomicInteger();
            List<CompletableFuture<Void>> waves = new ArrayList<>();
            for (int wave = 0; wave < 20; wave++) {
                if (wave == 10) {
                    app2.close(); // killed mid-run
                }
                List<CompletableFuture<HttpResponse<String>>> fs = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    fs.add(jdk.sendAsync(HttpRequest.newBuilder(URI.create(base + "/plaintext")).build(),
                            HttpResponse.BodyHandlers.ofString()));
                }
                for (CompletableFuture<HttpResponse<String>> f : fs) {
                    HttpResponse<String> resp = f.get(30, TimeUnit.SECONDS);
                    if (resp.statusCode() == 200 && resp.body().equals("Hello, World!")) {
                        ok.incrementAndGet();
                    } else {
                        errors.incrementAndGet();
                    }
                }
            }
            assertTrue(errors.get() <= 50, "errors only among the requests in flight when app2 died: " + errors + " of " + (ok.get() + errors.get()));
            assertTrue(ok.get() >= 950, ok + " ok");
            String metrics = jdk.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(metrics.contains("# TYPE teleport_proxy_requests_total counter"), metrics);
        } finally {
            a.close();
            b.close();
            app1.close();
            app2.close();
        }
    }

    private static int status(HttpClient jdk, String url) {
        try {
            return jdk.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    /** The same through curl, where it is installed. */
    private static void curl(String base) throws Exception {
        Process p;
        try {
            p = new ProcessBuilder("curl", "-s", "-i", base + "/plaintext").redirectErrorStream(true).start();
        } catch (java.io.IOException noCurl) {
            return;
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertTrue(out.startsWith("HTTP/1.1 200") && out.endsWith("Hello, World!") && out.contains("Via: "), out);
    }

    @Test
    void badFlagsAreRefusedWithTheirReason() {
        for (String[] args : new String[][] {
                {"--in-type", "ftp", "--out", "h:1"},
                {"--in-type", "http"},
                {"--out", "h:1", "--out-compress", "zstd"},
                {"--out", "h:1", "--in-compress", "deflate"},
                {"--out", "h:1", "--in-delay", "-1"},
                {"--out", "h:1", "--concurrency", "0"},
                {"--out", "h:1", "--bogus", "1"}}) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> TeleportProxy.Options.parse(args));
            assertTrue(!e.getMessage().isEmpty());
        }
    }
}
