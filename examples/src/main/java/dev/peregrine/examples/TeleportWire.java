package dev.peregrine.examples;

import dev.peregrine.Server;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.ClientResponse;
import dev.peregrine.client.HttpClient;
import dev.peregrine.client.HttpSender;
import dev.peregrine.teleport.TeleportClient;
import dev.peregrine.teleport.TeleportCompression;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code teleport-wire}: what a request costs on the wire, teleport (none, deflate, lz4) beside HTTP/1.1
 * keep-alive, measured with the kernel's counters ({@code nstat}: {@code IpExtOutOctets},
 * {@code TcpOutSegs}) around a run of requests kept {@code --in-flight} at a time, over loopback, the
 * server and the client in this process. Two kinds of request:
 * <pre>
 *   get   GET /api/items/{n}?page={p} (n unique per request) with the fields of an API client, one of 8
 *         users' session cookie: about 220 bytes of head; answered with a small JSON document
 *   post  POST /api/orders with an 800-byte JSON document (its order number unique, its items varying);
 *         answered {"ok":true,"id":n}
 * </pre>
 * The counters are the whole machine's (both directions of loopback count as output): run it on a
 * quiet machine. Printed per request: bytes and segments out (client and server together), and the
 * requests per second of the run.
 * <pre>
 *   scripts/teleport-wire [--requests 100000] [--in-flight 1000] [--delay 1] [--kinds get,post]
 *                         [--modes keepalive,none,deflate,lz4]
 * </pre>
 */
public final class TeleportWire {
    private static final String GET_JSON = "{\"id\":%d,\"name\":\"item %d\",\"price\":%d.99,\"tags\":[\"a\",\"b\"],\"stock\":%d}";

    private TeleportWire() {
    }

    public static void main(String[] args) {
        try {
            measure(args);
        } catch (IllegalArgumentException e) {
            System.err.println("teleport-wire: " + e.getMessage());
            System.exit(2);
        } catch (Exception e) {
            System.err.println("teleport-wire: " + e);
            System.exit(1);
        }
    }

    /** Parses the flags and prints one line per kind and mode. */
    static void measure(String[] args) throws Exception {
        Map<String, String> o = new LinkedHashMap<>(Map.of("--requests", "100000", "--in-flight", "1000", "--delay", "1",
                "--kinds", "get,post", "--modes", "keepalive,none,deflate,lz4"));
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!o.containsKey(args[i])) {
                throw new IllegalArgumentException("unknown flag " + args[i]);
            }
            o.put(args[i], args[i + 1]);
        }
        if (args.length % 2 != 0) {
            throw new IllegalArgumentException("flag without a value: " + args[args.length - 1]);
        }
        int requests = Integer.parseInt(o.get("--requests"));
        int inFlight = Integer.parseInt(o.get("--in-flight"));
        long delay = Long.parseLong(o.get("--delay"));
        System.out.printf("%-6s %-10s %10s %12s %12s %14s%n", "kind", "mode", "requests", "bytes/req", "segs/req", "req/s");
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).teleport(0)
                .get("/api/items/{id}", (req, res) -> {
                    int id = Integer.parseInt(req.pathParam("id"));
                    res.contentType("application/json").body(String.format(GET_JSON, id, id, id % 90, id % 13));
                })
                .post("/api/orders", (req, res) -> res.contentType("application/json")
                        .body("{\"ok\":true,\"id\":" + req.bodyBytes().length + "}"))
                .start()) {
            for (String kind : o.get("--kinds").split(",")) {
                for (String mode : o.get("--modes").split(",")) {
                    run(server, kind, mode, requests, inFlight, delay);
                }
            }
        }
    }

    private static void run(Server server, String kind, String mode, int requests, int inFlight, long delay) throws Exception {
        HttpClient http = null;
        HttpSender sender;
        String base;
        if (mode.equals("keepalive")) {
            http = HttpClient.builder().maxConnsPerHost(inFlight).build();
            sender = http;
            base = "http://127.0.0.1:" + server.port();
        } else {
            TeleportCompression c = mode.equals("deflate") ? TeleportCompression.DEFLATE : mode.equals("lz4") ? TeleportCompression.LZ4
                    : TeleportCompression.NONE;
            sender = TeleportClient.builder("127.0.0.1", server.teleportPort()).compression(c).maxInFlight(inFlight)
                    .maxBatchDelay(Duration.ofMillis(delay)).timeout(Duration.ofSeconds(60)).build();
            base = "http://api.example.com";
        }
        try {
            drive(sender, kind, base, Math.min(requests, 5 * inFlight), inFlight); // warm: connections up, code compiled
            long[] before = nstat();
            long t0 = System.nanoTime();
            long failed = drive(sender, kind, base, requests, inFlight);
            long nanos = System.nanoTime() - t0;
            long[] after = nstat();
            System.out.printf("%-6s %-10s %10d %12.1f %12.4f %14.0f%s%n", kind, mode, requests, (after[0] - before[0]) / (double) requests,
                    (after[1] - before[1]) / (double) requests, requests * 1e9 / nanos, failed > 0 ? "  (" + failed + " failed)" : "");
        } finally {
            if (sender instanceof AutoCloseable) {
                ((AutoCloseable) sender).close();
            }
        }
    }

    /** Request {@code seq} of {@code kind}: each differs as real ones would (its id, a page, one of 8 users' session). */
    private static ClientRequest request(String kind, String base, int seq) {
        int user = seq % 8;
        if (kind.equals("get")) {
            return ClientRequest.builder("GET", base + "/api/items/" + (100_000 + seq) + "?page=" + (seq % 7))
                    .header("User-Agent", "teleport-wire/1.0")
                    .header("Accept", "application/json")
                    .header("Accept-Language", "en-GB,en;q=0.8")
                    .header("Cookie", "session=" + Long.toHexString(0x5DEECE66DL * (user + 1)) + "; theme=dark")
                    .build();
        }
        StringBuilder json = new StringBuilder("{\"order\":" + seq + ",\"customer\":{\"id\":" + (7000 + user)
                + ",\"name\":\"Customer " + user + "\",\"email\":\"customer" + user + "@example.com\"},\"items\":[");
        for (int k = 0; json.length() < 740; k++) {
            json.append(k == 0 ? "" : ",").append("{\"sku\":\"SKU-").append(100 + (seq * 7 + k * 13) % 900)
                    .append("\",\"qty\":").append(1 + (seq + k) % 5).append(",\"price\":").append(3 + (seq * k) % 40).append(".50}");
        }
        json.append("]}");
        String body = json.length() > 800 ? json.substring(0, 799) + "}" : json + " ".repeat(800 - json.length());
        return ClientRequest.builder("POST", base + "/api/orders").header("Content-Type", "application/json")
                .header("User-Agent", "teleport-wire/1.0").body(body.getBytes(StandardCharsets.UTF_8)).build();
    }

    /** Sends {@code n} requests of {@code kind}, {@code inFlight} at a time; returns how many failed. */
    private static long drive(HttpSender sender, String kind, String base, int n, int inFlight) throws InterruptedException {
        Semaphore window = new Semaphore(inFlight);
        AtomicLong failed = new AtomicLong();
        for (int i = 0; i < n; i++) {
            window.acquire();
            CompletableFuture<ClientResponse> f = sender.send(request(kind, base, i));
            f.whenComplete((r, e) -> {
                if (e != null || r.status() != 200) {
                    failed.incrementAndGet();
                }
                window.release();
            });
        }
        if (!window.tryAcquire(inFlight, 120, TimeUnit.SECONDS)) {
            throw new IllegalStateException("calls still under way after 120 s");
        }
        return failed.get();
    }

    /** The machine's IpExtOutOctets and TcpOutSegs now ({@code nstat -saz}: absolute, history left alone). */
    private static long[] nstat() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("nstat", "-saz", "IpExtOutOctets", "TcpOutSegs").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("nstat failed: " + out);
        }
        long[] v = new long[2];
        for (String line : out.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 2 && f[0].equals("IpExtOutOctets")) {
                v[0] = Long.parseLong(f[1]);
            } else if (f.length >= 2 && f[0].equals("TcpOutSegs")) {
                v[1] = Long.parseLong(f[1]);
            }
        }
        return v;
    }
}
