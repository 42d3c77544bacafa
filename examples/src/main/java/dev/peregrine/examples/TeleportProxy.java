package dev.peregrine.examples;

import dev.peregrine.Completion;
import dev.peregrine.Request;
import dev.peregrine.Response;
import dev.peregrine.Server;
import dev.peregrine.client.BalancingClient;
import dev.peregrine.client.ClientException;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.ClientResponse;
import dev.peregrine.client.HttpClient;
import dev.peregrine.client.HttpSender;
import dev.peregrine.teleport.TeleportClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code teleport-proxy}: a reverse proxy like httpteleport's httptp. It takes requests of
 * {@code --in-type} on {@code --in} and sends each to the least-loaded healthy upstream of
 * {@code --out} (a {@link BalancingClient} over {@link TeleportClient}s or one {@link HttpClient}),
 * dropping hop-by-hop fields (RFC 9110 §7.6.1) and adding {@code Via} both ways. {@code GET /metrics}
 * on the proxy's HTTP port is its own, in Prometheus text (the proxy's counters and the server's
 * request and connection counts); every other request is proxied. Flags, all {@code --name value} or {@code --name=value}:
 * <pre>
 *   --in-type http|https|teleport|teleports  what clients speak to the proxy (https, teleports: a development certificate)
 *   --in host:port                  where (default 0.0.0.0:8080); with teleport in, the HTTP port is a free loopback one
 *   --out-type http|https|teleport|teleports  what the proxy speaks to upstreams (TLS: the JDK's trusted CAs)
 *   --out host:port[,host:port...]  upstreams (required)
 *   --in-delay ms                   teleport in: how long a response may wait for others to share its write (0)
 *   --out-delay ms                  teleport out: how long a request waits for others to share its batch (default 0)
 *   --out-compress none|deflate|lz4 teleport out: what the proxy writes (the upstream answers in kind)
 *   --in-compress auto              teleport in: the proxy answers in the compression each client writes
 *   --out-conns-per-addr n          connections per upstream (default 1 teleport, 64 http)
 *   --out-timeout ms                upstream answer deadline (default 3000): 504 past it, 502 on other failures
 *   --allow-ip a,b,...              only these client addresses (exact, or a prefix ending in '.' or ':'); others 403
 *   --client-ip-header name         sends the client's address upstream in this field (e.g. X-Forwarded-For)
 *   --max-body bytes                largest request body (default 16 MiB; 413 beyond)
 *   --concurrency n                 requests proxied at once (default 10000; 503 beyond)
 * </pre>
 */
public final class TeleportProxy {
    /** RFC 9110 §7.6.1 and the usual non-standard ones: never forwarded. */
    private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-connection", "te", "trailer",
            "transfer-encoding", "upgrade", "proxy-authorization", "proxy-authenticate", "host", "content-length");
    private static final String VIA = "1.1 peregrine-teleport-proxy";

    final Server server;
    private final BalancingClient balancer;
    private final List<AutoCloseable> senders;
    private final Options o;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicLong proxied = new AtomicLong();
    private final AtomicLong timeouts = new AtomicLong();
    private final AtomicLong badGateway = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();

    /** The parsed command line. */
    static final class Options {
        String inType = "http";
        String outType = "http";
        String inHost = "0.0.0.0";
        int inPort = 8080;
        List<String[]> out = new ArrayList<>();
        long outDelayMillis;
        dev.peregrine.teleport.TeleportCompression outCompress = dev.peregrine.teleport.TeleportCompression.NONE;
        /** A teleport server's batch delay ({@code teleportMaxBatchDelay}). */
        long inDelayMillis;
        int connsPerAddr = -1;
        long outTimeoutMillis = 3000;
        List<String> allowIp = List.of();
        String clientIpHeader;
        long maxBody = 16 << 20;
        int concurrency = 10_000;
        int threads = Runtime.getRuntime().availableProcessors();

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                String v;
                int eq = a.indexOf('=');
                if (eq > 0) {
                    v = a.substring(eq + 1);
                    a = a.substring(0, eq);
                } else {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException(a + " needs a value");
                    }
                    v = args[++i];
                }
                switch (a) {
                    case "--in-type": o.inType = type(v, "--in-type"); break;
                    case "--out-type": o.outType = type(v, "--out-type"); break;
                    case "--in": {
                        String[] hp = hostPort(v);
                        o.inHost = hp[0];
                        o.inPort = Integer.parseInt(hp[1]);
                        break;
                    }
                    case "--out":
                        for (String s : v.split(",")) {
                            o.out.add(hostPort(s.trim()));
                        }
                        break;
                    case "--in-delay": o.inDelayMillis = nonNegative(v, a); break;
                    case "--out-delay": o.outDelayMillis = nonNegative(v, a); break;
                    case "--in-compress":
                        if (!v.equals("auto")) {
                            throw new IllegalArgumentException("--in-compress " + v + ": only auto (a teleport server answers in the"
                                    + " compression each client writes)");
                        }
                        break;
                    case "--out-compress":
                        if (!v.equals("none") && !v.equals("deflate") && !v.equals("lz4")) {
                            throw new IllegalArgumentException("--out-compress " + v + ": none, deflate or lz4");
                        }
                        o.outCompress = v.equals("deflate") ? dev.peregrine.teleport.TeleportCompression.DEFLATE
                                : v.equals("lz4") ? dev.peregrine.teleport.TeleportCompression.LZ4 : dev.peregrine.teleport.TeleportCompression.NONE;
                        break;
                    case "--out-conns-per-addr": o.connsPerAddr = (int) positive(v, a); break;
                    case "--out-timeout": o.outTimeoutMillis = positive(v, a); break;
                    case "--allow-ip": o.allowIp = List.of(v.split(",")); break;
                    case "--client-ip-header": o.clientIpHeader = v; break;
                    case "--max-body": o.maxBody = nonNegative(v, a); break;
                    case "--concurrency": o.concurrency = (int) positive(v, a); break;
                    case "--threads": o.threads = (int) positive(v, a); break;
                    default: throw new IllegalArgumentException("unknown flag " + a);
                }
            }
            if (o.out.isEmpty()) {
                throw new IllegalArgumentException("--out host:port[,host:port...] is required");
            }
            if (o.outType.equals("teleport") && o.outDelayMillis < 0) {
                throw new IllegalArgumentException("--out-delay must not be negative");
            }
            return o;
        }

        private static String type(String v, String flag) {
            if (!Set.of("http", "https", "teleport", "teleports").contains(v)) {
                throw new IllegalArgumentException(flag + " must be http, https, teleport or teleports: " + v);
            }
            return v;
        }

        private static String[] hostPort(String s) {
            int colon = s.lastIndexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("host:port expected: " + s);
            }
            return new String[] {colon == 0 ? "0.0.0.0" : s.substring(0, colon), s.substring(colon + 1)};
        }

        private static long positive(String v, String flag) {
            long n = Long.parseLong(v);
            if (n < 1) {
                throw new IllegalArgumentException(flag + " must be at least 1: " + v);
            }
            return n;
        }

        private static long nonNegative(String v, String flag) {
            long n = Long.parseLong(v);
            if (n < 0) {
                throw new IllegalArgumentException(flag + " must not be negative: " + v);
            }
            return n;
        }
    }

    TeleportProxy(Options o) {
        this.o = o;
        List<AutoCloseable> made = new ArrayList<>();
        BalancingClient.Builder lb = BalancingClient.builder();
        Duration timeout = Duration.ofMillis(o.outTimeoutMillis);
        if (o.outType.startsWith("teleport")) {
            for (String[] hp : o.out) {
                TeleportClient.Builder tb = TeleportClient.builder(hp[0], Integer.parseInt(hp[1]));
                if (o.outType.equals("teleports")) {
                    try {
                        tb.tls(javax.net.ssl.SSLContext.getDefault()); // the JDK's trusted CAs, host name verified
                    } catch (java.security.NoSuchAlgorithmException e) {
                        throw new IllegalStateException("no default TLS context", e);
                    }
                }
                TeleportClient tp = tb.timeout(timeout)
                        .connections(o.connsPerAddr > 0 ? o.connsPerAddr : 1).maxInFlight(Math.max(1024, o.concurrency))
                        .maxBatchDelay(Duration.ofMillis(o.outDelayMillis))
                        .compression(o.outCompress)
                        .maxBodySize(Math.max(o.maxBody, 64L << 20)).build();
                made.add(tp);
                lb.upstream("http://" + hp[0] + ":" + hp[1], tp);
            }
        } else {
            HttpClient http = HttpClient.builder().readTimeout(timeout).totalTimeout(timeout)
                    .maxConnsPerHost(o.connsPerAddr > 0 ? o.connsPerAddr : 64).build();
            made.add(http);
            for (String[] hp : o.out) {
                lb.upstream(o.outType + "://" + hp[0] + ":" + hp[1], http);
            }
        }
        this.balancer = lb.build();
        this.senders = made;
        Server.Builder b = Server.builder().threads(o.threads).maxBodySize(o.maxBody)
                .teleportMaxBatchDelay(java.time.Duration.ofMillis(o.inDelayMillis))
                .get("/metrics", this::metrics).notFound(this::proxy);
        if (o.inType.equals("teleport")) {
            b.host("127.0.0.1").port(0).teleport(o.inPort); // the HTTP port serves /metrics on loopback only
        } else if (o.inType.equals("teleports")) {
            b.host("127.0.0.1").port(0).teleport(o.inPort, PlaintextApp.tlsConfig(new String[0]));
        } else {
            b.host(o.inHost).port(o.inPort);
            if (o.inType.equals("https")) {
                b.tls(PlaintextApp.tlsConfig(new String[0]));
            }
        }
        this.server = b.start();
    }

    /** Any request but {@code /metrics}: to an upstream, answered when it answers (off the loop). */
    private void proxy(Request req, Response res) {
        if (!allowed(req)) {
            refused.incrementAndGet();
            res.status(403).text("forbidden\n");
            return;
        }
        if (inFlight.incrementAndGet() > o.concurrency) {
            inFlight.decrementAndGet();
            refused.incrementAndGet();
            res.status(503).header("Retry-After", "1").text("proxy at its concurrency limit\n");
            return;
        }
        ClientRequest out;
        try {
            out = upstreamRequest(req);
        } catch (RuntimeException e) {
            inFlight.decrementAndGet();
            res.status(400).text("cannot forward: " + e.getMessage() + "\n");
            return;
        }
        Completion done = res.async();
        balancer.send(out).whenComplete((r, failure) -> {
            inFlight.decrementAndGet();
            Response answer = done.response();
            if (failure == null) {
                proxied.incrementAndGet();
                answer.status(r.status());
                List<String> names = r.headerNames();
                List<String> values = r.headerValues();
                Set<String> listed = connectionOptions(r.header("Connection"));
                for (int i = 0; i < names.size(); i++) {
                    String n = names.get(i).toLowerCase(Locale.ROOT);
                    if (n.equals("content-type")) {
                        answer.contentType(values.get(i));
                    } else if (!HOP_BY_HOP.contains(n) && !listed.contains(n) && !n.equals("date") && !n.equals("server")) {
                        answer.header(names.get(i), values.get(i));
                    }
                }
                answer.header("Via", VIA).body(r.body());
            } else {
                Throwable t = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                ClientException.Phase phase = t instanceof ClientException ? ((ClientException) t).phase() : null;
                boolean timedOut = phase == ClientException.Phase.READ || phase == ClientException.Phase.TOTAL;
                (timedOut ? timeouts : badGateway).incrementAndGet();
                answer.status(timedOut ? 504 : 502).header("Via", VIA)
                        .text((timedOut ? "upstream timed out" : "bad gateway: " + t.getMessage()) + "\n");
            }
            done.complete();
        });
    }

    private ClientRequest upstreamRequest(Request req) {
        String target = req.path() + (req.rawQuery() != null ? "?" + req.rawQuery() : "");
        ClientRequest.Builder b = ClientRequest.builder(req.method(), "http://upstream" + target);
        Set<String> listed = connectionOptions(req.header("Connection"));
        dev.peregrine.Headers fields = req.headers();
        for (int i = 0; i < fields.size(); i++) {
            String n = fields.name(i).toString();
            String lower = n.toLowerCase(Locale.ROOT);
            if (!HOP_BY_HOP.contains(lower) && !listed.contains(lower)) {
                b.header(n, fields.value(i).toString());
            }
        }
        b.header("Via", VIA);
        if (o.clientIpHeader != null && req.remoteAddress() != null) {
            b.header(o.clientIpHeader, req.remoteAddress().getAddress().getHostAddress());
        }
        if (req.bodyLength() > 0) {
            b.body(req.bodyBytes());
        }
        return b.build();
    }

    private boolean allowed(Request req) {
        if (o.allowIp.isEmpty()) {
            return true;
        }
        if (req.remoteAddress() == null) {
            return false;
        }
        String ip = req.remoteAddress().getAddress().getHostAddress();
        for (String a : o.allowIp) {
            if (ip.equals(a) || ((a.endsWith(".") || a.endsWith(":")) && ip.startsWith(a))) {
                return true;
            }
        }
        return false;
    }

    /** The field names a {@code Connection} header lists (hop-by-hop too, RFC 9110 §7.6.1). */
    private static Set<String> connectionOptions(String connection) {
        if (connection == null) {
            return Set.of();
        }
        java.util.HashSet<String> s = new java.util.HashSet<>();
        for (String t : connection.split(",")) {
            s.add(t.trim().toLowerCase(Locale.ROOT));
        }
        return s;
    }

    /** {@code GET /metrics}: the proxy's counters and the server's main ones, Prometheus text 0.0.4. */
    private void metrics(Request req, Response res) {
        dev.peregrine.Metrics m = server.metrics();
        StringBuilder t = new StringBuilder(1024);
        counter(t, "teleport_proxy_requests_total", "Requests answered by an upstream.", proxied.get());
        counter(t, "teleport_proxy_upstream_timeouts_total", "Requests answered 504: no upstream answer within --out-timeout.", timeouts.get());
        counter(t, "teleport_proxy_bad_gateway_total", "Requests answered 502: the upstream failed otherwise.", badGateway.get());
        counter(t, "teleport_proxy_refused_total", "Requests refused: --allow-ip (403) or --concurrency (503).", refused.get());
        t.append("# HELP teleport_proxy_in_flight Requests waiting for an upstream now.\n# TYPE teleport_proxy_in_flight gauge\n")
                .append("teleport_proxy_in_flight ").append(inFlight.get()).append('\n');
        counter(t, "teleport_proxy_server_requests_total", "Requests the proxy's server answered (all ports).", m.requests);
        counter(t, "teleport_proxy_server_connections_accepted_total", "Connections the proxy accepted (all ports).", m.accepted);
        res.contentType("text/plain; version=0.0.4; charset=utf-8").body(t);
    }

    private static void counter(StringBuilder t, String name, String help, long value) {
        t.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name).append(" counter\n")
                .append(name).append(' ').append(value).append('\n');
    }

    void close() {
        server.close();
        balancer.close();
        for (AutoCloseable c : senders) {
            try {
                c.close();
            } catch (Exception ignored) {
                // closing: nothing more to do
            }
        }
    }

    public static void main(String[] args) {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("teleport-proxy: " + e.getMessage());
            System.exit(2);
            return;
        }
        TeleportProxy p = new TeleportProxy(o);
        System.err.println("teleport-proxy: " + o.inType + " in on " + (o.inType.startsWith("teleport") ? p.server.teleportPort()
                : p.server.port()) + ", " + o.outType + " out to " + o.out.size() + " upstream(s); metrics on http port "
                + p.server.port());
        Runtime.getRuntime().addShutdownHook(new Thread(p::close, "teleport-proxy-shutdown"));
    }
}
