package dev.peregrine.examples;

import dev.peregrine.client.ClientException;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.ClientResponse;
import dev.peregrine.client.Http2Mode;
import dev.peregrine.client.HttpClient;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code fetch}: a curl-like command on Peregrine's client, the contract the README documents:
 * <pre>
 *   java -jar examples/target/peregrine-examples.jar fetch [-X METHOD] [-H 'Name: value']...
 *        [-d DATA|@file] [-i] [-n N] [--timeout 10s] [--http2] URL
 * </pre>
 * {@code --http2} speaks HTTP/2: h2c by prior knowledge for an {@code http} URL, ALPN {@code h2} (falling
 * back to HTTP/1.1 when the server chooses it) for {@code https}; with {@code -i} the status line then
 * reads {@code HTTP/2 200}.
 * Sends the request N times (default 1), one after another through one pooled client, and prints
 * each body to stdout (with {@code -i}, the status line and headers first). Exits 0 when every
 * response arrived, whatever its status; otherwise 1, with one line {@code error: <reason>} on stderr
 * (malformed response, timeout phase, refused, reset, too large). 2 for a bad command line.
 */
public final class Fetch {
    private Fetch() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        String method = null;
        List<String[]> headers = new ArrayList<>();
        byte[] body = null;
        boolean include = false;
        boolean http2 = false;
        int times = 1;
        Duration timeout = Duration.ofSeconds(10);
        String url = null;
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "-X":
                        method = args[++i];
                        break;
                    case "-H": {
                        String h = args[++i];
                        int colon = h.indexOf(':');
                        if (colon <= 0) {
                            throw new IllegalArgumentException("-H wants 'Name: value', got: " + h);
                        }
                        headers.add(new String[] {h.substring(0, colon).trim(), h.substring(colon + 1).trim()});
                        break;
                    }
                    case "-d": {
                        String d = args[++i];
                        body = d.startsWith("@") ? Files.readAllBytes(Path.of(d.substring(1))) : d.getBytes(StandardCharsets.UTF_8);
                        break;
                    }
                    case "-i":
                        include = true;
                        break;
                    case "--http2":
                        http2 = true;
                        break;
                    case "-n":
                        times = Integer.parseInt(args[++i]);
                        if (times < 1) {
                            throw new IllegalArgumentException("-n must be at least 1");
                        }
                        break;
                    case "--timeout":
                        timeout = duration(args[++i]);
                        break;
                    default:
                        if (a.startsWith("-") || url != null) {
                            throw new IllegalArgumentException("unknown argument: " + a);
                        }
                        url = a;
                }
            }
            if (url == null) {
                throw new IllegalArgumentException("no URL");
            }
        } catch (ArrayIndexOutOfBoundsException e) {
            err.println("usage: fetch [-X METHOD] [-H 'Name: value']... [-d DATA|@file] [-i] [-n N] [--timeout 10s] [--http2] URL");
            return 2;
        } catch (IllegalArgumentException | IOException e) {
            err.println("error: " + e.getMessage());
            return 2;
        }
        ClientRequest request;
        try {
            ClientRequest.Builder b = ClientRequest.builder(method != null ? method : body != null ? "POST" : "GET", url);
            for (String[] h : headers) {
                b.header(h[0], h[1]);
            }
            if (body != null) {
                b.body(body);
            }
            request = b.build();
        } catch (IllegalArgumentException e) {
            err.println("error: " + e.getMessage());
            return 2;
        }
        try (HttpClient client = HttpClient.builder().connectTimeout(timeout).readTimeout(timeout)
                .totalTimeout(timeout.multipliedBy(2)).http2(http2 ? Http2Mode.PRIOR_KNOWLEDGE : Http2Mode.OFF).build()) {
            for (int i = 0; i < times; i++) {
                ClientResponse r = client.execute(request);
                if (include) {
                    // HTTP/2 has no reason phrase (RFC 9113 §8.3.2): an empty one says the response came over it.
                    out.print(http2 && r.reason().isEmpty() ? "HTTP/2 " + r.status() + "\r\n"
                            : "HTTP/1.1 " + r.status() + " " + r.reason() + "\r\n");
                    for (int h = 0; h < r.headerNames().size(); h++) {
                        out.print(r.headerNames().get(h) + ": " + r.headerValues().get(h) + "\r\n");
                    }
                    out.print("\r\n");
                }
                out.write(r.body(), 0, r.body().length);
                out.flush();
            }
            return 0;
        } catch (ClientException e) {
            err.println("error: " + reason(e));
            return 1;
        }
    }

    /** The reason line: the phase in words, then what happened. */
    private static String reason(ClientException e) {
        switch (e.phase()) {
            case CONNECT:
                return "connect failed: " + e.getMessage();
            case READ:
            case TOTAL:
            case POOL:
                return "timeout (" + e.phase().name().toLowerCase() + "): " + e.getMessage();
            case RESPONSE:
                return "malformed response: " + e.getMessage();
            case TOO_LARGE:
                return "response too large: " + e.getMessage();
            case CLOSED:
                return "connection reset: " + e.getMessage();
            case RESET:
                return "stream reset: " + e.getMessage();
            default:
                return e.getMessage();
        }
    }

    /** {@code 10s}, {@code 500ms}, {@code 2m}; a bare number is seconds. */
    static Duration duration(String s) {
        try {
            if (s.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
            }
            if (s.endsWith("s")) {
                return Duration.ofMillis((long) (Double.parseDouble(s.substring(0, s.length() - 1)) * 1000));
            }
            if (s.endsWith("m")) {
                return Duration.ofMinutes(Long.parseLong(s.substring(0, s.length() - 1)));
            }
            return Duration.ofSeconds(Long.parseLong(s));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a duration: " + s + " (e.g. 10s, 500ms)");
        }
    }
}
