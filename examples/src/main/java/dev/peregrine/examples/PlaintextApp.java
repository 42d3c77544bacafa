package dev.peregrine.examples;

import dev.peregrine.Handler;
import dev.peregrine.Server;

import java.nio.charset.StandardCharsets;

/**
 * The TechEmpower-style app: {@code GET /plaintext}, {@code GET /json} and {@code POST /echo}. These
 * three routes are the contract the end-to-end tests and the benchmarks rely on.
 *
 * <pre>
 *   java -jar examples/target/peregrine-examples.jar [--port N] [--threads N]
 *   (or the PORT and THREADS environment variables; flags win)
 * </pre>
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
        CharSequence type = req.headerView("Content-Type");
        if (type != null) {
            res.contentType(type.toString());
        }
        res.body(req.body());
    };

    private PlaintextApp() {
    }

    /** The app's routes on a builder, for tests and benchmarks that start it in-process. */
    public static Server.Builder routes(Server.Builder builder) {
        return builder.get("/plaintext", PLAINTEXT).get("/json", JSON_MESSAGE).post("/echo", ECHO);
    }

    public static void main(String[] args) {
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            // one line per record instead of JUL's two
            System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tF %1$tT %4$s %5$s%6$s%n");
        }
        int port = intSetting(args, "--port", "PORT", 8080);
        int threads = intSetting(args, "--threads", "THREADS", Runtime.getRuntime().availableProcessors());
        Server server = routes(Server.builder().port(port).threads(threads)).start();
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "peregrine-shutdown"));
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
