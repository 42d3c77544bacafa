package dev.peregrine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Cross-origin resource sharing (the Fetch standard's CORS protocol) as a {@link Filter}: mount it on
 * the server ({@code .filter(cors)}) or on a route group ({@code group.filter(cors)}).
 * <pre>{@code
 * Filter cors = Cors.builder()
 *         .allowOrigins("https://app.example", "https://admin.example")
 *         .allowMethods("GET", "POST", "DELETE")
 *         .allowHeaders("Content-Type", "Authorization")
 *         .exposeHeaders("X-Request-Id")
 *         .allowCredentials(true)
 *         .maxAge(Duration.ofHours(1))
 *         .build();
 * }</pre>
 *
 * <table>
 *   <caption>what the filter does</caption>
 *   <tr><th>request</th><th>answer</th></tr>
 *   <tr><td>no {@code Origin}</td><td>the route, untouched (plus {@code Vary: Origin} unless any
 *       origin is allowed)</td></tr>
 *   <tr><td>preflight: {@code OPTIONS} with {@code Origin} and {@code Access-Control-Request-Method}</td>
 *       <td>{@code 204} from the filter, the route never runs; {@code Access-Control-Allow-Origin},
 *       {@code -Methods}, {@code -Headers}, {@code -Credentials}, {@code -Max-Age} only when the
 *       origin, the method and every requested header are allowed</td></tr>
 *   <tr><td>any other request with an allowed {@code Origin}</td><td>the route, with
 *       {@code Access-Control-Allow-Origin}, {@code -Credentials} and {@code -Expose-Headers}</td></tr>
 *   <tr><td>a disallowed {@code Origin}</td><td>no CORS header at all: the browser refuses the
 *       response to the page, the route still runs for a simple request (CORS protects readers, not
 *       the server)</td></tr>
 * </table>
 * The headers are set before the route runs, so they survive whatever the route answers but an
 * exception it does not map (a bare 500). With credentials, {@code Access-Control-Allow-Origin} is
 * never {@code *} (the Fetch standard forbids the pair): the builder refuses the combination at the call.
 * An exact origin list allocates nothing per request; a predicate gets the origin as a {@code String},
 * and only a well-formed one ({@link Origins}).
 * Register it before authentication filters (filters run in registration order): a browser's
 * preflight carries no credentials.
 *
 * <p>Immutable and thread-safe: one instance may serve every loop and every blocking thread.
 */
public final class Cors implements Filter {
    /** The most bytes of an {@code Origin} value looked at (a scheme, a host and a port fit easily). */
    private static final int MAX_ORIGIN_LENGTH = 512;

    private final String[] origins;
    private final boolean anyOrigin;
    private final Predicate<String> originPredicate;
    private final boolean credentials;
    private final String[] methods;
    private final String methodsValue;
    private final String[] headers;
    private final boolean anyHeader;
    private final String headersValue;
    private final String exposeValue;
    private final String maxAgeValue;
    /** Whether the answer depends on the origin (then every response says {@code Vary: Origin}). */
    private final boolean varies;

    private Cors(Builder b) {
        this.origins = b.origins.toArray(new String[0]);
        this.anyOrigin = b.anyOrigin;
        this.originPredicate = b.originPredicate;
        this.credentials = b.credentials;
        this.methods = b.methods.toArray(new String[0]);
        this.methodsValue = String.join(", ", b.methods);
        this.anyHeader = b.anyHeader;
        this.headers = b.headers.toArray(new String[0]);
        this.headersValue = b.headers.isEmpty() ? null : String.join(", ", b.headers);
        this.exposeValue = b.exposed.isEmpty() ? null : String.join(", ", b.exposed);
        this.maxAgeValue = b.maxAge == null ? null : Long.toString(b.maxAge.getSeconds());
        this.varies = !anyOrigin;
    }

    /** A builder; nothing is allowed until said so. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public void filter(Request req, Response res, Handler next) throws Exception {
        if (varies) {
            res.header("Vary", "Origin");
        }
        CharSequence origin = req.headers().view("Origin");
        if (origin == null) {
            next.handle(req, res);
            return;
        }
        String allowOrigin = allowedOrigin(origin);
        if ("OPTIONS".equals(req.method()) && req.headers().has("Access-Control-Request-Method")) {
            preflight(req, res, allowOrigin);
            return; // a preflight is the filter's to answer, never the route's
        }
        if (allowOrigin != null) {
            res.header("Access-Control-Allow-Origin", allowOrigin);
            if (credentials) {
                res.header("Access-Control-Allow-Credentials", "true");
            }
            if (exposeValue != null) {
                res.header("Access-Control-Expose-Headers", exposeValue);
            }
        }
        next.handle(req, res);
    }

    /** Answers a preflight: 204, with the grant only when origin, method and headers all pass. */
    private void preflight(Request req, Response res, String allowOrigin) {
        res.status(204);
        if (allowOrigin == null || !methodAllowed(req.headers().view("Access-Control-Request-Method"))) {
            return;
        }
        CharSequence requested = req.headers().view("Access-Control-Request-Headers");
        String allowHeaders = headersValue;
        if (requested != null && !blank(requested)) {
            if (anyHeader) {
                // With credentials "*" would be read as a header named "*" (Fetch): name them instead.
                allowHeaders = credentials ? requested.toString() : "*";
                if (!printable(requested)) {
                    return;
                }
            } else if (!headersAllowed(requested)) {
                return;
            }
        } else if (anyHeader) {
            allowHeaders = null;
        }
        res.header("Access-Control-Allow-Origin", allowOrigin);
        if (credentials) {
            res.header("Access-Control-Allow-Credentials", "true");
        }
        res.header("Access-Control-Allow-Methods", methodsValue);
        if (allowHeaders != null) {
            res.header("Access-Control-Allow-Headers", allowHeaders);
        }
        if (maxAgeValue != null) {
            res.header("Access-Control-Max-Age", maxAgeValue);
        }
    }

    /** The value of {@code Access-Control-Allow-Origin} for {@code origin}, or null when not allowed. */
    private String allowedOrigin(CharSequence origin) {
        if (anyOrigin) {
            return "*"; // the same for every origin, so no Vary (never with credentials: refused at the call)
        }
        for (String o : origins) {
            if (o.contentEquals(origin)) {
                return o; // the configured string: nothing allocated
            }
        }
        if (originPredicate == null || origin.length() > MAX_ORIGIN_LENGTH || !printable(origin) || !Origins.wellFormed(origin)) {
            return null; // a predicate sees only a well-formed origin: never "https://evil.com#.example.com"
        }
        return originPredicate.test(origin.toString()) ? origin.toString() : null;
    }

    private boolean methodAllowed(CharSequence method) {
        for (String m : methods) {
            if (m.contentEquals(method)) {
                return true; // methods are case-sensitive (RFC 9110 §9.1)
            }
        }
        return false;
    }

    /** Whether every name of the comma-separated {@code list} is allowed (names are case-insensitive). */
    private boolean headersAllowed(CharSequence list) {
        int n = list.length();
        int i = 0;
        while (i < n) {
            int comma = i;
            while (comma < n && list.charAt(comma) != ',') {
                comma++;
            }
            int s = i;
            int e = comma;
            while (s < e && (list.charAt(s) == ' ' || list.charAt(s) == '\t')) {
                s++;
            }
            while (e > s && (list.charAt(e - 1) == ' ' || list.charAt(e - 1) == '\t')) {
                e--;
            }
            if (e > s && !headerAllowed(list, s, e)) {
                return false;
            }
            i = comma + 1;
        }
        return true;
    }

    private boolean headerAllowed(CharSequence list, int start, int end) {
        for (String h : headers) {
            if (h.length() == end - start && regionEqualsIgnoreCase(h, list, start)) {
                return true;
            }
        }
        return false;
    }

    private static boolean regionEqualsIgnoreCase(String h, CharSequence s, int start) {
        for (int i = 0; i < h.length(); i++) {
            char a = h.charAt(i);
            char b = s.charAt(start + i);
            if (a != b && Character.toLowerCase(a) != Character.toLowerCase(b)) {
                return false;
            }
        }
        return true;
    }

    private static boolean blank(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) != ' ' && s.charAt(i) != '\t') {
                return false;
            }
        }
        return true;
    }

    /** Visible ASCII and spaces only: what may be echoed into a response header. */
    /**
     * A predicate for {@link Builder#allowOrigin}: origins of {@code scheme} whose host is {@code domain}
     * or a name under it, by whole labels ({@code subdomainsOf("https", "example.com")} takes
     * {@code https://example.com} and {@code https://app.example.com:8443}, not {@code https://evilexample.com},
     * {@code https://example.com.evil.net} or {@code http://app.example.com}). Any port.
     *
     * @throws IllegalArgumentException when {@code scheme} or {@code domain} is malformed
     */
    public static Predicate<String> subdomainsOf(String scheme, String domain) {
        return Origins.subdomainsOf(scheme, domain);
    }

    private static boolean printable(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                return false;
            }
        }
        return true;
    }

    /**
     * Collects the policy. Any origin with credentials is refused at the call that would combine them.
     * Not thread-safe.
     */
    public static final class Builder {
        private static final String ANY_WITH_CREDENTIALS = "CORS: credentials cannot be allowed for any origin"
                + " (\"*\", Fetch standard); list the origins or give a predicate";
        private final List<String> origins = new ArrayList<>();
        private boolean anyOrigin;
        private Predicate<String> originPredicate;
        private boolean credentials;
        private List<String> methods = List.of("GET", "HEAD", "POST");
        private final List<String> headers = new ArrayList<>();
        private boolean anyHeader;
        private final List<String> exposed = new ArrayList<>();
        private Duration maxAge;

        private Builder() {
        }

        /**
         * Allows these origins, compared exactly ({@code scheme://host[:port]}, as browsers send them).
         * {@code "*"} allows any origin, as {@link #allowAnyOrigin()}.
         *
         * @throws IllegalArgumentException for an origin with a path, a trailing slash or no scheme
         */
        public Builder allowOrigins(String... origins) {
            for (String o : origins) {
                Objects.requireNonNull(o, "origin");
                if (o.equals("*")) {
                    allowAnyOrigin();
                    continue;
                }
                int scheme = o.indexOf("://");
                if (scheme <= 0 || o.indexOf('/', scheme + 3) >= 0 || o.length() == scheme + 3 || !printable(o)
                        || o.indexOf(' ') >= 0) {
                    if (!o.equals("null")) {
                        throw new IllegalArgumentException("an origin is scheme://host[:port], without a path: " + o);
                    }
                }
                this.origins.add(o);
            }
            return this;
        }

        /**
         * Allows any origin: {@code Access-Control-Allow-Origin: *}.
         *
         * @throws IllegalArgumentException after {@code allowCredentials(true)} (the Fetch standard forbids the pair)
         */
        public Builder allowAnyOrigin() {
            if (credentials) {
                throw new IllegalArgumentException(ANY_WITH_CREDENTIALS);
            }
            anyOrigin = true;
            return this;
        }

        /**
         * Allows the origins {@code allowed} accepts; the origin is echoed. The predicate sees only a
         * well-formed origin ({@code "null"} or {@code scheme://host[:port]}, RFC 6454 §7.1: no path,
         * query, fragment or userinfo), so a string rule cannot be fooled by
         * {@code https://evil.com#.example.com}; still, prefer {@link Cors#subdomainsOf}, which compares
         * the host by labels (a bare {@code endsWith("example.com")} also takes {@code evilexample.com}).
         * Called per cross-origin request, on the thread running the route: it must be fast and
         * thread-safe. Exact origins from {@link #allowOrigins} are checked first.
         */
        public Builder allowOrigin(Predicate<String> allowed) {
            this.originPredicate = Objects.requireNonNull(allowed, "allowed");
            return this;
        }

        /** The methods a preflight may ask for (case-sensitive tokens); default GET, HEAD, POST. */
        public Builder allowMethods(String... methods) {
            List<String> list = new ArrayList<>();
            for (String m : methods) {
                checkToken(m, "method");
                list.add(m);
            }
            if (list.isEmpty()) {
                throw new IllegalArgumentException("at least one method");
            }
            this.methods = List.copyOf(list);
            return this;
        }

        /**
         * The request headers a preflight may ask for (case-insensitive names); {@code "*"} allows
         * any (with credentials, the requested names are echoed instead of {@code *}). Default none
         * beyond the CORS-safelisted ones, which browsers never ask for.
         */
        public Builder allowHeaders(String... names) {
            for (String h : names) {
                if ("*".equals(h)) {
                    anyHeader = true;
                } else {
                    checkToken(h, "header name");
                    headers.add(h);
                }
            }
            return this;
        }

        /** Response headers the page's script may read beyond the safelisted ones ({@code X-Request-Id}...). */
        public Builder exposeHeaders(String... names) {
            for (String h : names) {
                checkToken(h, "header name");
                exposed.add(h);
            }
            return this;
        }

        /**
         * Whether the browser may send cookies and credentials ({@code Access-Control-Allow-Credentials: true}).
         *
         * @throws IllegalArgumentException when any origin is allowed
         */
        public Builder allowCredentials(boolean allow) {
            if (allow && anyOrigin) {
                throw new IllegalArgumentException(ANY_WITH_CREDENTIALS);
            }
            this.credentials = allow;
            return this;
        }

        /** How long a browser may cache a preflight's answer ({@code Access-Control-Max-Age}); default unset. */
        public Builder maxAge(Duration maxAge) {
            if (maxAge.isNegative()) {
                throw new IllegalArgumentException("maxAge must not be negative: " + maxAge);
            }
            this.maxAge = maxAge;
            return this;
        }

        /**
         * The filter.
         *
         * @throws IllegalStateException when no origin is allowed
         */
        public Cors build() {
            if (!anyOrigin && origins.isEmpty() && originPredicate == null) {
                throw new IllegalStateException("CORS: no origin allowed; call allowOrigins, allowAnyOrigin or allowOrigin");
            }
            return new Cors(this);
        }

        private static void checkToken(String s, String what) {
            Objects.requireNonNull(s, what);
            if (s.isEmpty()) {
                throw new IllegalArgumentException("empty " + what);
            }
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c > 0xFF || !dev.peregrine.buffer.HttpTokens.TCHAR[c]) {
                    throw new IllegalArgumentException("not a token (RFC 9110 §5.6.2): " + what + " " + s);
                }
            }
        }
    }

    @Override
    public String toString() {
        return "Cors" + (anyOrigin ? "[*]" : Arrays.toString(origins)) + (originPredicate != null ? "+predicate" : "")
                + " methods=" + methodsValue + (credentials ? " credentials" : "");
    }
}
