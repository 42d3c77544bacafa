package dev.peregrine;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * Every scalar {@link Server.Builder} setting, also settable from outside the code: the system property
 * {@code peregrine.<name>} or the environment variable {@code PEREGRINE_<NAME>} (camel case to upper
 * snake case: {@code maxBodySize} is {@code PEREGRINE_MAX_BODY_SIZE}).
 *
 * <p>Precedence, highest first: a builder call, the system property, the environment variable, the
 * default. {@link Server#builder()} applies the outside values through the builder's own methods (so
 * they are checked by the same rules), and every later builder call overrides them. A value that does
 * not parse or that the builder refuses is reported by {@link Server.Builder#start()}, which fails
 * naming the setting, where it came from and the value; unknown {@code peregrine.*} /
 * {@code PEREGRINE_*} names get one WARNING line at start (a typo must not pass silently).
 *
 * <p>This class is the one table: {@link #markdown()} generates {@code docs/settings.md} from it (a
 * test fails when the file differs), and a test checks that every scalar builder method has an entry.
 *
 * <p>Value syntax: integers; byte sizes as integers or with {@code KiB}, {@code MiB}, {@code GiB};
 * durations as {@code 250ms}, {@code 10s}, {@code 5m}, {@code 1h} or ISO-8601 ({@code PT10S});
 * booleans as {@code true} or {@code false}. Thread: the builder's.
 */
final class Settings {
    /** One setting: how to apply a text value to a builder, and how to show its default. */
    record Setting(String name, String type, String doc, BiConsumer<Server.Builder, String> apply,
                   Function<Server.Builder, String> defaultText) {
        String property() {
            return "peregrine." + name;
        }

        String env() {
            return envName(name);
        }
    }

    static final List<Setting> ALL = List.of(
            text("host", "Address to bind.", Server.Builder::host, b -> b.host),
            integer("port", "Port to listen on; 0 picks a free one.", Server.Builder::port, b -> String.valueOf(b.port)),
            integer("teleport", "Also serve the routes over teleport (docs/teleport.md) on this port; 0 picks a free one,"
                    + " -1 none. Needs peregrine-teleport.", Server.Builder::teleport, b -> String.valueOf(b.teleportPort)),
            duration("teleportMaxBatchDelay", "Teleport: how long a response may wait for others to share its write (0: the end of the loop turn).",
                    Server.Builder::teleportMaxBatchDelay, b -> b.teleportMaxBatchDelayMillis),
            integer("teleportMaxBatchFrames", "Teleport: frames after which a batch of responses leaves.",
                    Server.Builder::teleportMaxBatchFrames, b -> String.valueOf(b.teleportMaxBatchFrames)),
            bytes("teleportMaxBatchBytes", "Teleport: bytes (before compression) after which a batch of responses leaves.",
                    (b, n) -> b.teleportMaxBatchBytes(toInt(n)), b -> b.teleportMaxBatchBytes),
            new Setting("threads", "int", "Number of event loops.", (b, v) -> b.threads(parseInt(v)),
                    b -> "available processors"),
            new Setting("transport", "string", "`auto` (epoll where it runs, else NIO), `epoll`, `io_uring` (else as `auto`, one INFO line) or `nio`.",
                    Server.Builder::transport, b -> "auto"),
            integer("ioUringRecvBuffers", "io_uring: 16 KiB buffers in each loop's receive ring (native memory per loop); 0: poll and recv instead.",
                    Server.Builder::ioUringRecvBuffers, b -> String.valueOf(b.ioUringRecvBuffers)),
            bool("reusePort", "Each loop binds its own socket with SO_REUSEPORT.", Server.Builder::reusePort, b -> b.reusePort),
            integer("backlog", "Listen backlog.", Server.Builder::backlog, b -> String.valueOf(b.backlog)),
            bytes("maxRequestLineLength", "Longest request line (414 beyond).", (b, n) -> b.maxRequestLineLength(toInt(n)), b -> b.maxRequestLineLength),
            bytes("maxHeadSize", "Longest request head, also the trailer limit (431 beyond).", (b, n) -> b.maxHeadSize(toInt(n)), b -> b.maxHeadSize),
            integer("maxHeaderCount", "Most header fields (431 beyond).", Server.Builder::maxHeaderCount, b -> String.valueOf(b.maxHeaderCount)),
            bytes("maxBodySize", "Largest request body, at most 1 GiB (413 beyond).", Server.Builder::maxBodySize, b -> b.maxBodySize),
            bytes("maxPendingOutput", "Unsent bytes per connection above which it is not read.", (b, n) -> b.maxPendingOutput(toInt(n)), b -> b.maxPendingOutput),
            bytes("readBufferSize", "Per-loop read buffer.", (b, n) -> b.readBufferSize(toInt(n)), b -> b.readBufferSize),
            bytes("writeBufferSize", "Per-loop write buffer.", (b, n) -> b.writeBufferSize(toInt(n)), b -> b.writeBufferSize),
            duration("shutdownGrace", "How long close() lets responses being written finish.", Server.Builder::shutdownGrace, b -> b.shutdownGraceMillis),
            duration("drainDelay", "How long close() (SIGTERM) keeps serving with readiness 503 before it stops.", Server.Builder::drainDelay, b -> b.drainDelayMillis),
            integer("blockingPoolSize", "Platform threads for blocking handlers on JDK 17-20.", Server.Builder::blockingPoolSize, b -> String.valueOf(b.blockingPoolSize)),
            duration("asyncTimeout", "Wait for an off-loop handler before 503.", Server.Builder::asyncTimeout, b -> b.asyncTimeoutMillis),
            bytes("streamBodyThreshold", "Bodies above this, and bodies without a length (chunked, HTTP/2 without `content-length`), are streamed to blocking and streaming handlers.", Server.Builder::streamBodyThreshold, b -> b.streamBodyThreshold),
            new Setting("maxStreamedBodySize", "bytes", "Largest body streamed to a blocking or streaming handler (413 beyond).",
                    (b, v) -> b.maxStreamedBodySize(parseBytes(v)), b -> "maxBodySize"),
            integer("maxPipelinedRequests", "Requests answered from one read before their responses must be taken.", Server.Builder::maxPipelinedRequests, b -> String.valueOf(b.maxPipelinedRequests)),
            integer("maxRequestsPerConnection", "Requests per connection, 0 for no limit.", Server.Builder::maxRequestsPerConnection, b -> String.valueOf(b.maxRequestsPerConnection)),
            integer("maxConnections", "Open connections per listener; accepting pauses at the limit.", Server.Builder::maxConnections, b -> String.valueOf(b.maxConnections)),
            duration("headerTimeout", "Time for a whole request head (408).", Server.Builder::headerTimeout, b -> b.headerTimeoutMillis),
            duration("bodyTimeout", "Time an incomplete body may go without a byte (408).", Server.Builder::bodyTimeout, b -> b.bodyTimeoutMillis),
            duration("idleTimeout", "Time a keep-alive connection may wait for a request.", Server.Builder::idleTimeout, b -> b.idleTimeoutMillis),
            duration("writeTimeout", "Time pending output may go without the peer taking any.", Server.Builder::writeTimeout, b -> b.writeTimeoutMillis),
            duration("drainTimeout", "Time a closing connection waits for the peer's FIN.", Server.Builder::drainTimeout, b -> b.drainTimeoutMillis),
            new Setting("maxConnectionAge", "duration", "Age after which a connection's next response closes it (gRPC A9); 0 is off.",
                    (b, v) -> b.maxConnectionAge(parseDuration(v)), b -> b.maxConnectionAgeMillis == 0 ? "0 (off)" : showMillis(b.maxConnectionAgeMillis)),
            duration("maxConnectionAgeGrace", "How long a connection past its age may stay idle before it is closed.",
                    Server.Builder::maxConnectionAgeGrace, b -> b.maxConnectionAgeGraceMillis),
            integer("maxConnectionAgeJitter", "Random variation of each connection's age, +/- percent (0..50).",
                    Server.Builder::maxConnectionAgeJitter, b -> String.valueOf(b.maxConnectionAgeJitter)),
            bool("requestDurations", "Request-duration histograms per route, method and status (http.server.request.duration).",
                    Server.Builder::requestDurations, b -> b.requestDurations),
            duration("slowHandlerThreshold", "Request duration from which JFR gets a dev.peregrine.SlowHandler event.",
                    Server.Builder::slowHandlerThreshold, b -> b.slowHandlerThresholdMillis),
            duration("blockedLoopWarning", "Inline handler time before one WARNING; 0 turns the check off.", Server.Builder::blockedLoopWarning, b -> b.blockedLoopWarningMillis),
            new Setting("busyLoopWarning", "`percent,interval`", "Share of an interval inline handlers may hold a loop, however short each call, before one WARNING, e.g. `50,1s`; 0 turns it off.",
                    (b, v) -> {
                        String[] parts = v.split(",", -1);
                        if (parts.length != 2) {
                            throw new IllegalArgumentException("expected a percent and an interval separated by a comma");
                        }
                        b.busyLoopWarning(Integer.parseInt(parts[0].trim()), parseDuration(parts[1].trim()));
                    }, b -> b.busyLoopPercent == 0 ? "0 (off)" : b.busyLoopPercent + "," + showMillis(b.busyLoopIntervalMillis)),
            new Setting("execution", "`LOOP` or `BLOCKING`", "Where handlers of routes without an explicit Execution run.",
                    (b, v) -> b.execution(parseEnum(v)), b -> b.execution.name()),
            duration("blockingTimeout", "Time a blocking handler has to answer before 503 and an interrupt; 0: asyncTimeout only.",
                    Server.Builder::blockingTimeout, b -> b.blockingTimeoutMillis),
            bool("requestIds", "Give each request an X-Request-Id (the client's if valid), echoed and logged.", Server.Builder::requestIds, b -> b.requestIds),
            bool("shutdownHook", "Close gracefully on SIGTERM/SIGINT through a JVM shutdown hook.", Server.Builder::shutdownHook, b -> b.shutdownHook),
            bool("http2", "Also speak HTTP/2: prior knowledge, ALPN h2 on TLS, Upgrade: h2c (docs/http2.md).", Server.Builder::http2, b -> b.http2),
            text("metricsEndpoint", "Path serving Prometheus/OpenMetrics text (unset: none).", Server.Builder::metricsEndpoint, b -> "none"),
            new Setting("healthEndpoints", "`live,ready` paths", "Liveness and readiness paths, e.g. `/health/live,/health/ready` (unset: none).",
                    (b, v) -> {
                        String[] paths = v.split(",", -1);
                        if (paths.length != 2 || paths[0].isBlank() || paths[1].isBlank()) {
                            throw new IllegalArgumentException("expected two paths separated by a comma");
                        }
                        b.healthEndpoints(paths[0].trim(), paths[1].trim());
                    }, b -> "none"),
            new Setting("proxyProtocol", "address blocks", "Expect PROXY protocol headers (v1/v2) on the main port from "
                    + "these peers only, e.g. `10.0.0.0/8,127.0.0.1,::1` (unset: off).",
                    (b, v) -> b.proxyProtocol(dev.peregrine.proxy.ProxyProtocol.parse(v)), b -> "off"),
            new Setting("httpsProxyProtocol", "address blocks", "The same for the second HTTPS port of `https(port, tls)`: "
                    + "PROXY headers from these peers only (unset: off).",
                    (b, v) -> b.httpsProxyProtocol(dev.peregrine.proxy.ProxyProtocol.parse(v)), b -> "off"));

    private Settings() {
    }

    /**
     * Applies the outside values found in {@code properties} and {@code env} to {@code builder}. Returns
     * the problems (bad values, unknown names), each naming the setting, its source and the value; the
     * builder reports them at start.
     */
    static List<String> apply(Server.Builder builder, Properties properties, Map<String, String> env) {
        List<String> problems = new ArrayList<>();
        for (Setting s : ALL) {
            String source = s.property();
            String value = properties.getProperty(source);
            if (value == null) {
                source = s.env();
                value = env.get(source);
            }
            if (value == null) {
                continue;
            }
            try {
                s.apply().accept(builder, value.trim());
            } catch (RuntimeException e) {
                problems.add("bad value for setting " + s.name() + ": " + source + "='" + value + "': " + e.getMessage());
            }
        }
        return problems;
    }

    /** {@code peregrine.*} properties and {@code PEREGRINE_*} variables that name no setting (sorted). */
    static List<String> unknownNames(Properties properties, Map<String, String> env) {
        TreeSet<String> known = new TreeSet<>();
        for (Setting s : ALL) {
            known.add(s.property());
            known.add(s.env());
        }
        TreeSet<String> unknown = new TreeSet<>();
        for (String name : properties.stringPropertyNames()) {
            if (name.startsWith("peregrine.") && !known.contains(name)) {
                unknown.add(name);
            }
        }
        for (String name : env.keySet()) {
            if (name.startsWith("PEREGRINE_") && !known.contains(name)) {
                unknown.add(name);
            }
        }
        return new ArrayList<>(unknown);
    }

    /** {@code maxBodySize} → {@code PEREGRINE_MAX_BODY_SIZE}. */
    static String envName(String name) {
        StringBuilder b = new StringBuilder("PEREGRINE_");
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isUpperCase(c)) {
                b.append('_');
            }
            b.append(Character.toUpperCase(c));
        }
        return b.toString();
    }

    /** The table of settings as Markdown: what {@code docs/settings.md} holds. */
    static String markdown() {
        Server.Builder defaults = new Server.Builder(false);
        StringBuilder b = new StringBuilder();
        b.append("# Settings\n\n")
                .append("<!-- Generated from dev.peregrine.Settings by SettingsTest; do not edit: run\n")
                .append("     `mvn -pl core -am verify -Dtest=SettingsTest -DwriteSettingsDoc=true -Dsurefire.failIfNoSpecifiedTests=false` -->\n\n")
                .append("Every setting of `Server.builder()` below can also come from the system property ")
                .append("`peregrine.<name>` or the environment variable `PEREGRINE_<NAME>`. A builder call wins over ")
                .append("the system property, which wins over the environment. A bad value fails `start()` naming the ")
                .append("setting, where it came from and the value; an unknown `peregrine.*` or `PEREGRINE_*` name ")
                .append("gets one WARNING line.\n\n")
                .append("Values: integers; byte sizes as integers or with `KiB`, `MiB`, `GiB`; durations as `250ms`, ")
                .append("`10s`, `5m`, `1h` or ISO-8601 (`PT10S`); booleans `true` or `false`.\n\n")
                .append("TLS (`https(port, TlsConfig)`, `tls(TlsConfig)`) and routes are set in code only.\n\n")
                .append("| setting | system property | environment | type | default | meaning |\n")
                .append("|---|---|---|---|---|---|\n");
        for (Setting s : ALL) {
            b.append("| `").append(s.name()).append("` | `").append(s.property()).append("` | `").append(s.env())
                    .append("` | ").append(s.type()).append(" | ").append(s.defaultText().apply(defaults))
                    .append(" | ").append(s.doc()).append(" |\n");
        }
        return b.toString();
    }

    // ---- kinds of settings -------------------------------------------------------------------------

    private static Setting integer(String name, String doc, IntSetter set, Function<Server.Builder, String> def) {
        return new Setting(name, "int", doc, (b, v) -> set.set(b, parseInt(v)), def);
    }

    private static Setting bytes(String name, String doc, LongSetter set, ToLongFunction<Server.Builder> def) {
        return new Setting(name, "bytes", doc, (b, v) -> set.set(b, parseBytes(v)), b -> showBytes(def.applyAsLong(b)));
    }

    private static Setting duration(String name, String doc, BiConsumer<Server.Builder, Duration> set,
                                    ToLongFunction<Server.Builder> defMillis) {
        return new Setting(name, "duration", doc, (b, v) -> set.accept(b, parseDuration(v)),
                b -> showMillis(defMillis.applyAsLong(b)));
    }

    private static Setting bool(String name, String doc, BoolSetter set, Function<Server.Builder, Boolean> def) {
        return new Setting(name, "boolean", doc, (b, v) -> set.set(b, parseBoolean(v)), b -> String.valueOf(def.apply(b)));
    }

    private static Setting text(String name, String doc, BiConsumer<Server.Builder, String> set,
                                Function<Server.Builder, String> def) {
        return new Setting(name, "string", doc, (b, v) -> {
            if (v.isEmpty()) {
                throw new IllegalArgumentException("must not be empty");
            }
            set.accept(b, v);
        }, def);
    }

    @FunctionalInterface
    private interface IntSetter {
        void set(Server.Builder b, int v);
    }

    @FunctionalInterface
    private interface LongSetter {
        void set(Server.Builder b, long v);
    }

    @FunctionalInterface
    private interface BoolSetter {
        void set(Server.Builder b, boolean v);
    }

    // ---- parsing -----------------------------------------------------------------------------------

    static int parseInt(String v) {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an integer");
        }
    }

    static int toInt(long v) {
        if (v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("too large: " + v);
        }
        return (int) v;
    }

    /** {@code 1024}, {@code 64KiB}, {@code 8MiB}, {@code 1GiB} (also {@code KB}/{@code MB}/{@code GB} as binary units). */
    static long parseBytes(String v) {
        String s = v.trim();
        long unit = 1;
        String upper = s.toUpperCase(Locale.ROOT);
        String[][] units = {{"KIB", "1024"}, {"MIB", "1048576"}, {"GIB", "1073741824"},
                {"KB", "1024"}, {"MB", "1048576"}, {"GB", "1073741824"}};
        for (String[] u : units) {
            if (upper.endsWith(u[0])) {
                unit = Long.parseLong(u[1]);
                s = s.substring(0, s.length() - u[0].length()).trim();
                break;
            }
        }
        try {
            return Math.multiplyExact(Long.parseLong(s), unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("not a byte size (e.g. 1048576, 64KiB, 8MiB)");
        }
    }

    /** {@code 250ms}, {@code 10s}, {@code 5m}, {@code 1h}, or ISO-8601 such as {@code PT10S}. */
    static Duration parseDuration(String v) {
        String s = v.trim().toLowerCase(Locale.ROOT);
        try {
            if (s.startsWith("pt") || s.startsWith("p")) {
                return Duration.parse(v.trim());
            }
            if (s.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2).trim()));
            }
            long n = Long.parseLong(s.substring(0, Math.max(0, s.length() - 1)).trim());
            switch (s.isEmpty() ? ' ' : s.charAt(s.length() - 1)) {
                case 's':
                    return Duration.ofSeconds(n);
                case 'm':
                    return Duration.ofMinutes(n);
                case 'h':
                    return Duration.ofHours(n);
                default:
                    break;
            }
        } catch (NumberFormatException | DateTimeParseException e) {
            // falls through to the message below
        }
        throw new IllegalArgumentException("not a duration (e.g. 250ms, 10s, 5m, 1h, PT10S)");
    }

    static boolean parseBoolean(String v) {
        if (v.equalsIgnoreCase("true")) {
            return true;
        }
        if (v.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException("not true or false");
    }

    private static Execution parseEnum(String v) {
        try {
            return Execution.valueOf(v.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("expected LOOP or BLOCKING");
        }
    }

    private static String showBytes(long n) {
        if (n >= 1 << 30 && n % (1 << 30) == 0) {
            return n / (1 << 30) + " GiB";
        }
        if (n >= 1 << 20 && n % (1 << 20) == 0) {
            return n / (1 << 20) + " MiB";
        }
        if (n >= 1 << 10 && n % (1 << 10) == 0) {
            return n / (1 << 10) + " KiB";
        }
        return String.valueOf(n);
    }

    private static String showMillis(long ms) {
        if (ms != 0 && ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        if (ms != 0 && ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }
}
