package dev.peregrine.examples;

import dev.peregrine.Handler;
import dev.peregrine.Server;
import dev.peregrine.tls.DevCertificate;
import dev.peregrine.tls.TlsConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The TechEmpower-style app: {@code GET /plaintext}, {@code GET /json} and {@code POST /echo}, plus
 * {@code GET /cookies}, the WebSocket echo {@code /ws/echo}, and {@link WebRoutes}' {@code POST /upload} and {@code GET /json-object}. These routes are
 * the contract the end-to-end tests and the benchmarks rely on.
 *
 * <pre>
 *   java -jar examples/target/peregrine-examples.jar [--port N] [--threads N]
 *        [--https-port N [--tls-cert chain.pem --tls-key key.pem] [--tls-provider jdk|bc]]
 *        [--idle-timeout-ms N] [--max-connections N] [--metrics 1] [--static DIR] [--http2 0|1]
 *   java -jar examples/target/peregrine-examples.jar fetch [-X METHOD] [-H 'Name: value']... [-d DATA|@file]
 *        [-i] [-n N] [--timeout 10s] [--http2] URL
 *   java -jar examples/target/peregrine-examples.jar load -c CONNS -d SECONDS [--pipeline DEPTH] [--threads N]
 *        [--http2] URL
 *   java -jar examples/target/peregrine-examples.jar teleport-proxy --out host:port[,...] [flags of TeleportProxy]
 *   java -jar examples/target/peregrine-examples.jar teleport-wire [flags of TeleportWire]
 *   (or the PORT, THREADS, HTTPS_PORT, IDLE_TIMEOUT_MS, MAX_CONNECTIONS and METRICS environment
 *   variables; flags win)
 * </pre>
 * With {@code --https-port} the same routes are also served over TLS on that port: with the PEM
 * certificate chain and PKCS#8 key given, or else with a self-signed development certificate for
 * localhost made at start, whose PEM is written to a temporary file named in the log (for
 * {@code curl --cacert}).
 * HTTP/2 is on unless {@code --http2 0} (or {@code HTTP2=0}): h2c by prior knowledge and by
 * {@code Upgrade: h2c} on the plain port, h2 through ALPN on the HTTPS port (docs/http2.md).
 * {@code --metrics 1} adds {@code GET /metrics}: the server's counters plus JVM heap in use and direct
 * buffer memory in the Prometheus text format ({@code Server.Builder.metricsEndpoint}), read by
 * scripts/soak and scripts/census. {@code GET /health/live} and {@code GET /health/ready} are always
 * served (not part of the benchmark contract either).
 * {@code --static DIR} serves the files under DIR at {@code /static/} ({@code Server.Builder.staticFiles}).
 * {@code fetch} is the HTTP client's command line ({@link Fetch}), {@code load} its load generator
 * ({@link LoadCommand}).
 * SIGTERM or Ctrl-C closes the server gracefully.
 */
public final class PlaintextApp {
    private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] JSON = "{\"message\":\"Hello, World!\"}".getBytes(StandardCharsets.US_ASCII);
    private static final String TEXT_PLAIN = "text/plain";
    private static final String APPLICATION_JSON = "application/json";

    /** {@code Hello, World!} as {@code text/plain}, from constants: no allocation. */
    public static final Handler PLAINTEXT = (req, res) -> res.contentType(TEXT_PLAIN).body(HELLO);

    /** The TechEmpower JSON message. */
    public static final Handler JSON_MESSAGE = (req, res) -> res.contentType(APPLICATION_JSON).body(JSON);

    /** The request body back, with the request's Content-Type (none if it had none). */
    public static final Handler ECHO = (req, res) -> {
        CharSequence type = req.headers().view("Content-Type");
        if (type != null) {
            res.contentType(type.toString());
        }
        res.body(req.body());
    };

    /**
     * {@code GET /cookies}: the cookies the request carried, as a JSON object, and a
     * {@code visited=1; Path=/; HttpOnly; SameSite=Lax} cookie set.
     */
    public static final Handler COOKIES = (req, res) -> {
        StringBuilder json = new StringBuilder("{");
        for (java.util.Map.Entry<String, String> c : req.cookies().map().entrySet()) {
            json.append(json.length() > 1 ? "," : "").append(jsonString(c.getKey())).append(':').append(jsonString(c.getValue()));
        }
        res.cookie(dev.peregrine.Cookie.of("visited", "1").path("/").httpOnly().sameSite(dev.peregrine.Cookie.SameSite.LAX))
                .contentType("application/json").body(json.append('}'));
    };

    private static String jsonString(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    private PlaintextApp() {
    }

    /**
     * {@code /ws/echo}: every text and binary message back as it came, compressed (permessage-deflate)
     * when the client offers it; messages up to 16 MiB, the largest Autobahn|Testsuite sends.
     */
    static final dev.peregrine.WebSocketHandler WS_ECHO = new dev.peregrine.WebSocketHandler() {
        @Override
        public void onText(dev.peregrine.websocket.WebSocketSession session, dev.peregrine.websocket.Payload text) {
            session.send(text);
        }

        @Override
        public void onBinary(dev.peregrine.websocket.WebSocketSession session, dev.peregrine.websocket.Payload data) {
            session.send(data);
        }
    };
    static final dev.peregrine.WebSocketOptions WS_ECHO_OPTIONS = dev.peregrine.WebSocketOptions.DEFAULTS
            .maxFrameSize(16 << 20).maxMessageSize(16 << 20);

    /** The app's routes on a builder, for tests and benchmarks that start it in-process. */
    public static Server.Builder routes(Server.Builder builder) {
        builder.get("/plaintext", PLAINTEXT).get("/json", JSON_MESSAGE).post("/echo", ECHO).get("/cookies", COOKIES);
        builder.websocket("/ws/echo", WS_ECHO_OPTIONS, WS_ECHO);
        return WebRoutes.routes(builder, dev.peregrine.form.MultipartLimits.DEFAULTS); // /upload, /json-object
    }

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("fetch")) {
            Fetch.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("teleport-proxy")) {
            TeleportProxy.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("teleport-wire")) {
            TeleportWire.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("load")) {
            LoadCommand.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && (args[0].equals("--help") || args[0].equals("-h"))) {
            System.out.println(USAGE);
            return;
        }
        String unknown = unknownArgument(args);
        if (unknown != null) { // a mistyped flag would otherwise start a server without what it asked for
            System.err.println("peregrine: " + unknown + "\n" + USAGE);
            System.exit(2);
        }
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            // one line per record instead of JUL's two
            System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tF %1$tT %4$s %5$s%6$s%n");
        }
        Server server = app(args).start();
        // SIGTERM / Ctrl-C: stop accepting, finish requests in flight (within the grace), free buffers.
        // JUL drops records logged from shutdown hooks (its own hook resets it), hence stderr here.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            System.err.println("peregrine: closed on signal; " + server.metrics());
        }, "peregrine-shutdown"));
    }

    /**
     * The app as its command line configures it (everything {@link #main} does but start): the
     * routes, the flags of the README's table, health endpoints, and compression of text answers
     * (gzip, deflate, and br or zstd when their libraries are present) when the client asks.
     */
    public static Server.Builder app(String[] args) {
        int port = intSetting(args, "--port", "PORT", 8080);
        int threads = intSetting(args, "--threads", "THREADS", Runtime.getRuntime().availableProcessors());
        int httpsPort = intSetting(args, "--https-port", "HTTPS_PORT", -1);
        int idleMillis = intSetting(args, "--idle-timeout-ms", "IDLE_TIMEOUT_MS", 60_000);
        int maxConnections = intSetting(args, "--max-connections", "MAX_CONNECTIONS", 100_000);
        boolean metrics = intSetting(args, "--metrics", "METRICS", 0) != 0;
        Server.Builder builder = routes(Server.builder().port(port).threads(threads)
                .idleTimeout(java.time.Duration.ofMillis(idleMillis)).maxConnections(maxConnections));
        if (httpsPort >= 0) {
            builder.https(httpsPort, tlsConfig(args));
        }
        String staticDir = stringSetting(args, "--static");
        if (staticDir != null) {
            int validMillis = intSetting(args, "--static-cache-valid-ms", "STATIC_CACHE_VALID_MS", 0);
            builder.staticFiles("/static", java.nio.file.Path.of(staticDir), dev.peregrine.StaticOptions.builder()
                    .cacheValid(java.time.Duration.ofMillis(validMillis)).build());
        }
        if (metrics) {
            builder.metricsEndpoint("/metrics").requestDurations(true); // with the per-route histograms
        }
        builder.healthEndpoints("/health/live", "/health/ready");
        builder.http2(intSetting(args, "--http2", "HTTP2", 1) != 0);
        // Bodies under Compression's minSize (1 KiB), such as /plaintext's, are never compressed and
        // carry no Vary: the TechEmpower answers stay as they were.
        return builder.compression(dev.peregrine.Compression.defaults());
    }

    /** The TLS settings from {@code --tls-cert}, {@code --tls-key} and {@code --tls-provider}. */
    public static TlsConfig tlsConfig(String[] args) {
        String cert = stringSetting(args, "--tls-cert");
        String key = stringSetting(args, "--tls-key");
        String provider = stringSetting(args, "--tls-provider");
        TlsConfig.Builder tls = TlsConfig.builder();
        if (provider != null) {
            switch (provider) {
                case "jdk":
                    tls.provider(TlsConfig.Provider.JDK);
                    break;
                case "bc":
                    tls.provider(TlsConfig.Provider.BOUNCY_CASTLE);
                    break;
                default:
                    System.err.println("peregrine: --tls-provider must be jdk or bc, got '" + provider + "'");
                    System.exit(2);
            }
        }
        if (cert != null && key != null) {
            return tls.pem(Path.of(cert), Path.of(key)).build();
        }
        if (cert != null || key != null) {
            System.err.println("peregrine: --tls-cert and --tls-key go together");
            System.exit(2);
        }
        DevCertificate dev = DevCertificate.generate();
        try {
            Path pem = Files.createTempFile("peregrine-dev-cert", ".pem");
            dev.writeCertificate(pem);
            pem.toFile().deleteOnExit();
            System.getLogger("dev.peregrine").log(System.Logger.Level.INFO,
                    "HTTPS uses a self-signed development certificate for localhost: " + pem);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return tls.identity(dev.chain(), dev.privateKey()).build();
    }

    /** The server's flags, each taking a value ({@code --flag value} or {@code --flag=value}). */
    static final java.util.List<String> FLAGS = java.util.List.of("--port", "--threads", "--https-port", "--tls-cert",
            "--tls-key", "--tls-provider", "--idle-timeout-ms", "--max-connections", "--metrics", "--static",
            "--static-cache-valid-ms", "--http2");

    static final String USAGE = "usage: java -jar peregrine-examples.jar [--port N] [--threads N]\n"
            + "         [--https-port N [--tls-cert chain.pem --tls-key key.pem] [--tls-provider jdk|bc]]\n"
            + "         [--idle-timeout-ms N] [--max-connections N] [--metrics 1] [--static DIR [--static-cache-valid-ms N]]\n"
            + "         [--http2 0|1]\n"
            + "       java -jar peregrine-examples.jar fetch|load|teleport-proxy|teleport-wire ... (see the README)";

    /**
     * What is wrong with the server's arguments, or null: every one must be a known flag with its
     * value, so that a typo ({@code --htps-port}) stops the app instead of starting it without HTTPS.
     */
    static String unknownArgument(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            int eq = a.indexOf('=');
            String flag = eq > 0 ? a.substring(0, eq) : a;
            if (!FLAGS.contains(flag)) {
                return "unknown argument '" + a + "'";
            }
            if (eq < 0 && ++i == args.length) {
                return flag + " needs a value";
            }
        }
        return null;
    }

    static String stringSetting(String[] args, String flag) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals(flag) && i + 1 < args.length) {
                return args[i + 1];
            }
            if (args[i].startsWith(flag + "=")) {
                return args[i].substring(flag.length() + 1);
            }
        }
        return null;
    }

    static int intSetting(String[] args, String flag, String env, int fallback) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals(flag) && i + 1 < args.length) {
                return parse(args[i + 1], flag);
            }
            if (args[i].startsWith(flag + "=")) {
                return parse(args[i].substring(flag.length() + 1), flag);
            }
        }
        String value = System.getenv(env);
        return value == null || value.isBlank() ? fallback : parse(value.trim(), env);
    }

    private static int parse(String value, String what) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            System.err.println("peregrine: " + what + " must be a whole number, got '" + value + "'");
            System.exit(2);
            return -1;
        }
    }
}
