package dev.peregrine.scaleout;

import dev.peregrine.Server;
import dev.peregrine.examples.PlaintextApp;
import dev.peregrine.proxy.ProxyProtocol;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.Transports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The scale-out proof against the real thing: HAProxy (HTTP mode, active checks on
 * {@code /health/ready}, {@code send-proxy-v2}) in front of two Peregrine instances that trust PROXY
 * headers from 127.0.0.1 only, one on NIO and one on epoll (where Netty ships it). It shows that requests
 * spread over both, that the client's address (a client bound to 127.0.0.2, and its port) survives
 * the hop, and that a rolling restart of both instances, one after the other, under 20 s of wrk load
 * loses no request: each drains (readiness 503, {@code drainDelay}, {@code Connection: close}) and
 * comes back on its port, and wrk reports no non-2xx response and no socket error.
 *
 * <p>The configuration is generated into a temporary folder and is the one {@code docs/deploy.md}
 * shows. Skipped, with the reason, only where no {@code haproxy} or {@code wrk} binary can be found
 * ({@code scripts/lib/ensure-tools.sh} installs both from Debian's packages). Waiting is for observable
 * events (answers, counters) within generous bounds, never for a fixed time.
 */
class HaproxyScaleOutTest {
    private static final int WRK_SECONDS = 20;

    @TempDir
    Path dir;
    private final Map<String, Instance> instances = new HashMap<>();
    private Process haproxy;
    private int frontPort;

    /** One Peregrine instance: its server, its port (kept across restarts), and its own request count. */
    private static final class Instance {
        final String name;
        final String transport;
        final int port;
        final AtomicLong served = new AtomicLong();
        Server server;

        Instance(String name, String transport, int port) {
            this.name = name;
            this.transport = transport;
            this.port = port;
        }

        void start() {
            served.set(0);
            server = PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(port).threads(1).transport(transport)
                    .proxyProtocol(ProxyProtocol.trusting("127.0.0.1"))
                    .healthEndpoints("/health/live", "/health/ready")
                    .drainDelay(Duration.ofSeconds(3)).shutdownGrace(Duration.ofSeconds(5))
                    .get("/whoami", (req, res) -> {
                        served.incrementAndGet();
                        res.text(name + " " + req.remoteAddress().getAddress().getHostAddress() + " " + req.remoteAddress().getPort());
                    })
                    .get("/load", (req, res) -> {
                        served.incrementAndGet();
                        res.text("Hello, World!");
                    })
                    .start();
        }
    }

    static Path find(String binary) {
        for (String d : (System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/usr/local/sbin:/sbin").split(":")) {
            Path p = Path.of(d.isEmpty() ? "." : d, binary);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** The HAProxy configuration this test proves, as docs/deploy.md shows it (ports filled in). */
    static String config(int frontPort, int portA, int portB) {
        return """
                global
                    maxconn 2000

                defaults
                    mode http
                    option http-keep-alive
                    timeout connect 2s
                    timeout client  30s
                    timeout server  30s
                    # a keep-alive connection the server closes as a request leaves is retried elsewhere
                    retries 3
                    retry-on conn-failure empty-response
                    option redispatch 1

                frontend www
                    bind 127.0.0.1:%d
                    default_backend peregrine

                backend peregrine
                    balance roundrobin
                    option httpchk
                    http-check send meth GET uri /health/ready ver HTTP/1.1 hdr Host localhost
                    http-check expect status 200
                    # down after 2 failed checks 250 ms apart, well within drainDelay (3 s)
                    default-server inter 250ms fall 2 rise 2 check send-proxy-v2
                    server a 127.0.0.1:%d
                    server b 127.0.0.1:%d
                """.formatted(frontPort, portA, portB);
    }

    @BeforeEach
    void start() throws Exception {
        Path haproxyBin = find("haproxy");
        Path wrkBin = find("wrk");
        assumeTrue(haproxyBin != null, "haproxy not found on PATH or in /usr/sbin: install it (apt-get install haproxy; "
                + "scripts/test does) to run the scale-out test");
        assumeTrue(wrkBin != null, "wrk not found on PATH: install it (apt-get install wrk; scripts/test does)");
        boolean epoll = Transports.epollShipped();
        instances.put("a", new Instance("a", "nio", freePort()));
        instances.put("b", new Instance("b", epoll ? "epoll" : "nio", freePort()));
        for (Instance i : instances.values()) {
            i.start();
        }
        frontPort = freePort();
        Path cfg = dir.resolve("haproxy.cfg");
        Files.writeString(cfg, config(frontPort, instances.get("a").port, instances.get("b").port));
        Process check = new ProcessBuilder(haproxyBin.toString(), "-c", "-f", cfg.toString()).redirectErrorStream(true).start();
        String checkOut = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, check.waitFor(), "haproxy -c: " + checkOut);
        haproxy = new ProcessBuilder(haproxyBin.toString(), "-db", "-f", cfg.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("haproxy.log").toFile()).start();
        // Up once both instances answer through it (the checks marked them up).
        Await.until(() -> {
            try {
                get("/whoami");
            } catch (IOException e) {
                return false;
            }
            return instances.get("a").served.get() > 0 && instances.get("b").served.get() > 0;
        }, () -> "HAProxy never reached both instances: " + log());
    }

    @AfterEach
    void stop() throws Exception {
        if (haproxy != null) {
            haproxy.destroy();
            if (!haproxy.waitFor(10, TimeUnit.SECONDS)) {
                haproxy.destroyForcibly();
            }
        }
        for (Instance i : instances.values()) {
            if (i.server != null) {
                i.server.close();
            }
        }
    }

    private String log() {
        try {
            return Files.readString(dir.resolve("haproxy.log"));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** One GET through HAProxy from 127.0.0.2 on a new connection; returns the body. */
    private String get(String path) throws IOException {
        return getFrom(path, null);
    }

    private String getFrom(String path, int[] localPort) throws IOException {
        try (Socket s = new Socket()) {
            s.setSoTimeout(10_000);
            s.bind(new InetSocketAddress("127.0.0.2", 0));
            s.connect(new InetSocketAddress("127.0.0.1", frontPort), 10_000);
            if (localPort != null) {
                localPort[0] = s.getLocalPort();
            }
            OutputStream out = s.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            if (!response.startsWith("HTTP/1.1 200")) {
                throw new IOException("not 200: " + response);
            }
            return response.substring(response.indexOf("\r\n\r\n") + 4);
        }
    }

    @Test
    void requestsSpreadAndTheClientAddressSurvivesTheHop() throws IOException {
        Map<String, Integer> seen = new HashMap<>();
        for (int n = 0; n < 20; n++) {
            int[] local = new int[1];
            String[] answer = getFrom("/whoami", local).split(" ");
            seen.merge(answer[0], 1, Integer::sum);
            assertEquals("127.0.0.2", answer[1], "the client's address, not HAProxy's (127.0.0.1)");
            assertEquals(String.valueOf(local[0]), answer[2], "the client's port, not HAProxy's");
        }
        assertEquals(2, seen.size(), "both instances answer: " + seen);
        assertTrue(seen.get("a") >= 5 && seen.get("b") >= 5, "round robin spreads: " + seen);
        // Peers other than HAProxy are refused: a direct connection from 127.0.0.2 gets no answer.
        Instance a = instances.get("a");
        try (Socket s = new Socket()) {
            s.setSoTimeout(10_000);
            s.bind(new InetSocketAddress("127.0.0.2", 0));
            s.connect(new InetSocketAddress("127.0.0.1", a.port));
            s.getOutputStream().write("GET /whoami HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            int first;
            try {
                first = s.getInputStream().read();
            } catch (java.net.SocketException reset) {
                first = -1;
            }
            assertEquals(-1, first);
        }
        Await.until(() -> a.server.metrics().proxyUntrusted == 1, () -> a.server.metrics().toString());
    }

    @Test
    void aRollingRestartUnderLoadLosesNoRequest() throws Exception {
        Process wrk = new ProcessBuilder(find("wrk").toString(), "-t1", "-c8", "-d" + WRK_SECONDS + "s", "--timeout", "10s",
                "http://127.0.0.1:" + frontPort + "/load")
                .redirectErrorStream(true).redirectOutput(dir.resolve("wrk.txt").toFile()).start();
        try {
            for (String name : new String[]{"a", "b"}) {
                Instance i = instances.get(name);
                Await.until(() -> i.served.get() > 100, () -> name + " takes no load: " + log());
                long closeStarted = System.nanoTime();
                i.server.close(); // readiness 503, 3 s drainDelay (HAProxy marks it down), then stop
                assertTrue(wrk.isAlive(), "the restart of " + name + " must happen under load; close took "
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closeStarted) + " ms");
                i.start(); // back on the same port
                Await.until(() -> i.served.get() > 100, () -> name + " not back in rotation: " + log());
                assertTrue(wrk.isAlive(), name + " must be back in rotation while the load runs");
            }
            assertTrue(wrk.waitFor(WRK_SECONDS + 30, TimeUnit.SECONDS), "wrk did not end");
        } finally {
            wrk.destroy();
        }
        String out = Files.readString(dir.resolve("wrk.txt"));
        System.out.println("wrk through HAProxy during the rolling restart:\n" + out); // the figure, in the test's report
        assertEquals(0, wrk.exitValue(), out);
        Matcher total = Pattern.compile("(\\d+) requests in").matcher(out);
        assertTrue(total.find(), out);
        assertTrue(Long.parseLong(total.group(1)) > 1000, "wrk made too few requests to prove anything: " + out);
        assertFalse(out.contains("Non-2xx or 3xx responses"), "answers other than 2xx: " + out);
        assertFalse(out.contains("Socket errors"), "wrk saw socket errors: " + out + "\nHAProxy:\n" + log());
    }
}
