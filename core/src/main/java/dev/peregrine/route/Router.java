package dev.peregrine.route;

import dev.peregrine.Handler;
import dev.peregrine.exchange.RequestView;
import dev.peregrine.http1.Methods;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

/**
 * Finds the handler for a request from its method and raw path (percent-encoding is not undone for
 * matching). Static paths are found in an open-addressing hash table keyed by the path's bytes, so a
 * lookup allocates nothing; patterns with {@code {name}} segments are tried next, in the order they
 * were added.
 *
 * <table>
 *   <caption>outcomes</caption>
 *   <tr><th>case</th><th>answer</th></tr>
 *   <tr><td>path and method registered</td><td>the handler</td></tr>
 *   <tr><td>HEAD where only GET is registered</td><td>the GET handler; the body is not sent</td></tr>
 *   <tr><td>OPTIONS not registered</td><td>204 with {@code Allow}</td></tr>
 *   <tr><td>{@code OPTIONS *}</td><td>204 with {@code Allow}: every method of any route</td></tr>
 *   <tr><td>another method on a known path</td><td>405 with {@code Allow} (RFC 9110 §15.5.6)</td></tr>
 *   <tr><td>unknown path</td><td>404</td></tr>
 *   <tr><td>a method token the server does not know</td><td>501 (RFC 9110 §9.1)</td></tr>
 * </table>
 *
 * <p>A trailing {@code *} matches the rest of the path, which is refused (400) when it could leave a
 * directory it is resolved against: it never begins with {@code /} and holds no empty segment but
 * the last (a trailing {@code /}); no segment is {@code .} or {@code ..} (plain or percent-encoded),
 * and none holds an encoded {@code /}, {@code \}, NUL or a raw backslash ({@link #unsafeParameter}).
 *
 * <p>The router's own answers (all but the first two rows) are handlers like any route's: a
 * {@link Builder#decorate decorator} given at build wraps each of them once, so the application's
 * filters (CORS, request ids, authentication) see them too; a path's 405 and OPTIONS answers may get a
 * decorator of their own ({@link Builder#decorate(String, UnaryOperator)}: a route group's filters).
 *
 * <p>Immutable and shared by all loops; {@link #resolve} writes only into the caller's arrays.
 */
public final class Router {
    private static final Handler NOT_FOUND = (req, res) -> res.error(404);
    private final Handler notImplemented;
    /** A path parameter that could leave its segment (see {@link #unsafeParameter}). */
    private final Handler badParameter;
    /** {@link Route#segments} entry for a trailing {@code *}: matches the rest of the path. */
    static final byte[] WILDCARD = new byte[0];
    /** {@link #match}: the route matches, but a parameter is unsafe. */
    private static final int UNSAFE = -2;

    // The static-path table, by slot. A path is keyed by its length and its bytes as little-endian
    // words: the first eight bytes ({@link #word}, zero-padded when shorter), the last eight (overlapping
    // the first when shorter than 16), and, past 16 bytes, the words between. A lookup reads the first
    // and last words once, for the hash and for the compare, so a path of up to 16 bytes costs two reads
    // from the request buffer (byte by byte, the hash's multiply chain and a bounds-checked read per
    // byte cost more than the rest of routing).
    //
    // A slot's key and its answers are laid out flat, so that a hit is two loads from two arrays after
    // the hash, not a chain through the Route (values[i], then its resolved[], then the handler: each
    // load waiting on the one before, and the handler's call on all of them):
    //   keys[4i .. 4i+3]        first word, last word, length (0: empty slot), route id   (32 bytes)
    //   handlers[9i .. 9i+8]    Route.resolved of the slot's route, by method id (Methods.COUNT)
    //   keyMiddles[i]           the words between, for paths over 16 bytes; else null
    //   values[i]               the Route, for methods outside Methods only (by name)
    private static final int KEY_STRIDE = 4;
    private final long[] keys;
    private final Handler[] handlers;
    private final long[][] keyMiddles;
    private final Route[] values;
    private final int mask;
    private final Route[] patterns;
    private final Handler serverOptions;
    /** Every registered method outside {@link Methods} (known to this server: 405, not 501, elsewhere). */
    private final java.util.Set<String> otherMethodNames = new java.util.LinkedHashSet<>();

    /** Each route's pattern by route number (see {@link #routePattern}). */
    private final String[] routePatterns;

    /** The answer for an unknown path: {@link #NOT_FOUND} unless the application gave its own. */
    private final Handler notFound;

    private Router(Map<String, Route> statics, List<Route> patterns, Handler notFound, UnaryOperator<Handler> builtIns) {
        this.notFound = builtIns.apply(notFound == null ? NOT_FOUND : notFound);
        this.notImplemented = builtIns.apply((req, res) -> res.error(501));
        this.badParameter = builtIns.apply((req, res) -> res.error(400));
        List<Route> numbered = new ArrayList<>(statics.values());
        numbered.addAll(patterns);
        routePatterns = new String[numbered.size()];
        for (int n = 0; n < routePatterns.length; n++) {
            numbered.get(n).id = n;
            routePatterns[n] = numbered.get(n).pattern;
        }
        int size = Integer.highestOneBit(Math.max(4, statics.size() * 3)) << 1;
        keys = new long[size * KEY_STRIDE];
        handlers = new Handler[size * Methods.COUNT];
        keyMiddles = new long[size][];
        values = new Route[size];
        mask = size - 1;
        TreeSet<String> all = new TreeSet<>();
        for (Map.Entry<String, Route> e : statics.entrySet()) {
            byte[] k = e.getKey().getBytes(StandardCharsets.UTF_8); // never empty: a path starts with '/'
            ByteBuffer kb = ByteBuffer.wrap(k).order(ByteOrder.LITTLE_ENDIAN);
            long first = word(kb, 0, k.length);
            long last = lastWord(kb, 0, k.length, first);
            int i = hash(k.length, first, last) & mask;
            while (values[i] != null) {
                i = (i + 1) & mask;
            }
            Route route = e.getValue();
            int at = i * KEY_STRIDE;
            keys[at] = first;
            keys[at + 1] = last;
            keys[at + 2] = k.length;
            keys[at + 3] = route.id;
            System.arraycopy(route.resolved, 0, handlers, i * Methods.COUNT, Methods.COUNT);
            if (k.length > 16) {
                long[] middle = new long[(k.length - 9) >>> 3];
                for (int j = 0; j < middle.length; j++) {
                    middle[j] = kb.getLong(8 + (j << 3));
                }
                keyMiddles[i] = middle;
            }
            values[i] = route;
        }
        this.patterns = patterns.toArray(new Route[0]);
        for (Route r : statics.values()) {
            all.add(r.allow);
            otherMethodNames.addAll(r.otherMethods.keySet());
        }
        for (Route r : patterns) {
            all.add(r.allow);
            otherMethodNames.addAll(r.otherMethods.keySet());
        }
        List<String> methods = new ArrayList<>();
        for (int m = 0; m < Methods.COUNT; m++) {
            String name = Methods.name(m);
            if (all.stream().anyMatch(a -> List.of(a.split(", ")).contains(name))) {
                methods.add(name);
            }
        }
        methods.addAll(otherMethodNames);
        String allow = String.join(", ", methods.isEmpty() ? List.of("OPTIONS") : methods);
        serverOptions = builtIns.apply((req, res) -> res.status(204).header("Allow", allow));
    }

    /** The pattern of route number {@code id} ({@link RequestView#routeId()}), as registered: {@code /users/{id}}. */
    public String routePattern(int id) {
        return routePatterns[id];
    }

    /** A builder collecting routes. */
    public static Builder builder() {
        return new Builder();
    }

    /** Up to eight bytes of {@code [p, end)} as a little-endian word, zero above the last. */
    static long word(ByteBuffer b, int p, int end) {
        int n = end - p;
        if (n >= 8 || p + 8 <= b.limit()) {
            long w = littleEndian(b, p);
            return n >= 8 ? w : w & ((1L << (n << 3)) - 1);
        }
        long w = 0;
        for (int i = end - 1; i >= p; i--) {
            w = w << 8 | (b.get(i) & 0xFF);
        }
        return w;
    }

    /** The last eight bytes of {@code [start, end)}, or {@code first} when there are no more than eight. */
    private static long lastWord(ByteBuffer b, int start, int end, long first) {
        return end - start > 8 ? littleEndian(b, end - 8) : first;
    }

    private static long littleEndian(ByteBuffer b, int p) {
        long w = b.getLong(p);
        return b.order() == ByteOrder.LITTLE_ENDIAN ? w : Long.reverseBytes(w);
    }

    private static int hash(int length, long first, long last) {
        long h = (first * 0x9E37_79B9_7F4A_7C15L) ^ (last + length) * 0xC2B2_AE3D_27D4_EB4FL;
        return (int) (h ^ (h >>> 29) ^ (h >>> 47));
    }

    /** Whether the words between the first and the last eight bytes (paths over 16 bytes) match. */
    private static boolean middleEqual(long[] middle, ByteBuffer b, int start) {
        if (middle == null) {
            return true;
        }
        for (int j = 0; j < middle.length; j++) {
            if (littleEndian(b, start + 8 + (j << 3)) != middle[j]) {
                return false;
            }
        }
        return true;
    }

    /**
     * The handler for {@code req}: a registered one, or the router's own answer (404, 405, 501,
     * OPTIONS). Path parameters, if any, are recorded into {@code req}.
     *
     * @param starts scratch for parameter offsets, at least as long as the most parameters a route has
     * @param ends scratch, likewise
     */
    public Handler resolve(RequestView req, int[] starts, int[] ends) {
        req.setRouteId(-1);
        int method = req.methodId();
        if (method == Methods.OTHER && otherMethodNames.isEmpty()) {
            return notImplemented; // RFC 9110 §15.6.2: a method this server does not know
        }
        if (req.isAsteriskForm()) {
            return serverOptions;
        }
        ByteBuffer b = req.pathBuffer();
        int start = req.pathStartIndex();
        int end = req.pathEndIndex();
        int len = end - start;
        long first = word(b, start, end);
        long last = lastWord(b, start, end, first);
        int i = hash(len, first, last) & mask;
        long[] k = keys;
        long keyLength;
        while ((keyLength = k[i * KEY_STRIDE + 2]) != 0) {
            int at = i * KEY_STRIDE;
            if (keyLength == len && k[at] == first && k[at + 1] == last && (len <= 16 || middleEqual(keyMiddles[i], b, start))) {
                req.setRouteId((int) k[at + 3]);
                if (method != Methods.OTHER) {
                    return handlers[i * Methods.COUNT + method]; // the route's resolved[method]
                }
                return otherMethod(values[i], req);
            }
            i = (i + 1) & mask;
        }
        return resolvePattern(req, method, b, start, end, starts, ends);
    }

    /**
     * {@link #resolve} for a path not in the static table: the patterns, in order, then 404. A method of
     * its own so that {@code resolve} stays small enough for C2 to inline into the dispatch (at most
     * {@code FreqInlineSize}, 325 bytecodes).
     */
    private Handler resolvePattern(RequestView req, int method, ByteBuffer b, int start, int end, int[] starts, int[] ends) {
        for (Route r : patterns) {
            int n = match(r, b, start, end, starts, ends);
            if (n == UNSAFE) {
                return badParameter;
            }
            if (n >= 0) {
                req.setPathParams(r.paramNames, starts, ends, n);
                return handlerFor(r, method, req);
            }
        }
        return notFound;
    }

    /** {@code r}'s handler for the request's method; a registered custom method is looked up by name. */
    private Handler handlerFor(Route r, int method, RequestView req) {
        req.setRouteId(r.id);
        if (method != Methods.OTHER) {
            return r.resolved[method]; // filled by Route.seal
        }
        return otherMethod(r, req);
    }

    /** {@code r}'s handler for a method outside {@link Methods}, looked up by name; 405 or 501 when it has none. */
    private Handler otherMethod(Route r, RequestView req) {
        String name = req.method(); // a String only for methods outside the usual nine
        Handler h = r.otherHandler(name);
        if (h != null) {
            return h;
        }
        return otherMethodNames.contains(name) ? r.methodNotAllowed : notImplemented;
    }

    private static boolean equal(byte[] k, ByteBuffer b, int start) {
        for (int j = 0; j < k.length; j++) {
            if (k[j] != b.get(start + j)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Matches a pattern against {@code [start, end)}; returns the parameter count, -1, or
     * {@link #UNSAFE} when the path matches but a parameter is unsafe.
     */
    private static int match(Route r, ByteBuffer b, int start, int end, int[] starts, int[] ends) {
        int p = start;
        int params = 0;
        for (byte[] seg : r.segments) {
            if (p >= end || b.get(p) != '/') {
                return -1;
            }
            p++;
            if (seg == WILDCARD) { // the last segment: the rest of the path, however many segments
                for (int s = p, e = p; e <= end; e++) {
                    if (e == end || b.get(e) == '/') {
                        // An empty segment before the end (a rest "/etc/passwd" or "a//b") would make the
                        // rest absolute or ambiguous once resolved against a root: refused. Only the last
                        // may be empty (the whole rest "", or a trailing '/' naming a directory).
                        if (e == s && e != end) {
                            return UNSAFE;
                        }
                        if (unsafeParameter(b, s, e)) {
                            return UNSAFE;
                        }
                        s = e + 1;
                    }
                }
                starts[params] = p;
                ends[params] = end;
                return params + 1;
            }
            int s = p;
            while (p < end && b.get(p) != '/') {
                p++;
            }
            if (seg == null) {
                if (p == s) {
                    return -1;
                }
                if (unsafeParameter(b, s, p)) {
                    return UNSAFE; // even if a later segment would not match: such a path is refused
                }
                starts[params] = s;
                ends[params] = p;
                params++;
            } else if (seg.length != p - s || !equal(seg, b, s)) {
                return -1;
            }
        }
        return p == end ? params : -1;
    }

    /**
     * Whether the segment {@code [start, end)} captured by a {@code {name}} parameter could, once
     * decoded, leave its segment — a handler doing {@code root.resolve(req.pathParam("file"))} must not
     * be led out of {@code root}. Refused (400, as Jetty refuses ambiguous segments): an encoded
     * {@code /} ({@code %2F}), {@code \} ({@code %5C}) or NUL ({@code %00}) anywhere in it, and a
     * value that decodes to {@code .} or {@code ..}. Unencoded {@code /} cannot occur (it ends the
     * segment), and the request parser already refuses raw NUL and backslash-free control bytes.
     */
    static boolean unsafeParameter(ByteBuffer b, int start, int end) {
        int dots = 0;
        boolean onlyDots = true;
        for (int i = start; i < end; i++) {
            byte c = b.get(i);
            if (c == '%' && i + 2 < end) {
                int v = hex(b.get(i + 1)) << 4 | hex(b.get(i + 2));
                if (v == '/' || v == '\\' || v == 0) {
                    return true;
                }
                if (v == '.') {
                    dots++;
                } else {
                    onlyDots = false;
                }
                i += 2;
            } else if (c == '\\') {
                return true;
            } else if (c == '.') {
                dots++;
            } else {
                onlyDots = false;
            }
        }
        return onlyDots && (dots == 1 || dots == 2);
    }

    /** The value of an ASCII hex digit, or a value that makes any escape it is part of harmless. */
    private static int hex(byte c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return 0x100;
    }

    /** Collects routes; {@link #build} freezes them. */
    public static final class Builder {
        private final Map<String, Route> statics = new LinkedHashMap<>();
        private final Map<String, Route> patterns = new LinkedHashMap<>();
        private Handler notFound;
        private UnaryOperator<Handler> builtIns = UnaryOperator.identity();
        private final Map<String, UnaryOperator<Handler>> pathBuiltIns = new java.util.HashMap<>();

        /**
         * Wraps each of the router's own answers (404, 405, 501, 400 for an unsafe parameter,
         * OPTIONS) once, at {@link #build}: the application's filters, so that they see every request.
         */
        public Builder decorate(UnaryOperator<Handler> decorator) {
            this.builtIns = java.util.Objects.requireNonNull(decorator, "decorator");
            return this;
        }

        /** As {@link #decorate(UnaryOperator)}, for the 405 and OPTIONS answers of the route at {@code path} only. */
        public Builder decorate(String path, UnaryOperator<Handler> decorator) {
            pathBuiltIns.put(path, java.util.Objects.requireNonNull(decorator, "decorator"));
            return this;
        }

        /** The handler for paths no route matches (default: the plain 404). */
        public Builder notFound(Handler handler) {
            this.notFound = handler;
            return this;
        }

        /**
         * Registers {@code handler} for {@code method} on {@code path}. A path starts with {@code /};
         * a segment {@code {name}} matches any one non-empty segment; a last segment {@code *} matches
         * the rest of the path, any number of segments, available as {@code pathParam("*")}. Static
         * paths win over patterns, and patterns are tried in the order registered, wildcard routes
         * last. {@code method} is any token (RFC 9110 §9: {@code PROPFIND}, {@code PURGE},
         * {@code QUERY}...), case-sensitive; CONNECT is not supported (no tunnelling here).
         *
         * @throws IllegalArgumentException for a malformed method or path, or a duplicate registration
         */
        public Builder add(String method, String path, Handler handler) {
            int m = Methods.id(method);
            if (m == Methods.CONNECT) {
                throw new IllegalArgumentException("unsupported method: CONNECT (no tunnelling)");
            }
            if (m == Methods.OTHER && !isToken(method)) {
                throw new IllegalArgumentException("a method must be a token (RFC 9110 §9.1): " + method);
            }
            if (handler == null) {
                throw new NullPointerException("handler");
            }
            if (path.isEmpty() || path.charAt(0) != '/') {
                throw new IllegalArgumentException("path must start with '/': " + path);
            }
            boolean isPattern = path.contains("{") || path.contains("*");
            Route route = isPattern ? patterns.computeIfAbsent(path, Builder::pattern)
                    : statics.computeIfAbsent(path, p -> new Route(p, new String[0], null));
            if (m == Methods.OTHER ? route.otherMethods.containsKey(method) : route.byMethod[m] != null) {
                throw new IllegalArgumentException("duplicate route: " + method + " " + path);
            }
            if (m == Methods.OTHER) {
                route.otherMethods.put(method, handler);
            } else {
                route.byMethod[m] = handler;
            }
            return this;
        }

        private static boolean isToken(String s) {
            if (s.isEmpty()) {
                return false;
            }
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c > 0xFF || !dev.peregrine.buffer.HttpTokens.TCHAR[c]) {
                    return false;
                }
            }
            return true;
        }

        private static Route pattern(String path) {
            String[] parts = path.substring(1).split("/", -1);
            byte[][] segments = new byte[parts.length][];
            List<String> names = new ArrayList<>();
            for (int i = 0; i < parts.length; i++) {
                String part = parts[i];
                if (part.startsWith("{") && part.endsWith("}") && part.length() > 2) {
                    String name = part.substring(1, part.length() - 1);
                    if (names.contains(name)) {
                        throw new IllegalArgumentException("parameter {" + name + "} twice in " + path);
                    }
                    names.add(name);
                } else if (part.equals("*") && i == parts.length - 1) {
                    segments[i] = WILDCARD;
                    names.add("*");
                } else if (part.contains("{") || part.contains("}") || part.contains("*")) {
                    throw new IllegalArgumentException("a parameter must be a whole segment, and * the last one: " + path);
                } else {
                    segments[i] = part.getBytes(StandardCharsets.UTF_8);
                }
            }
            if (names.size() > 16) {
                throw new IllegalArgumentException("more than 16 parameters in " + path);
            }
            return new Route(path, names.toArray(new String[0]), segments);
        }

        /** The router, immutable. */
        public Router build() {
            statics.values().forEach(r -> r.seal(pathBuiltIns.getOrDefault(r.pattern, builtIns)));
            patterns.values().forEach(r -> r.seal(pathBuiltIns.getOrDefault(r.pattern, builtIns)));
            List<Route> ordered = new ArrayList<>(patterns.values());
            ordered.sort(java.util.Comparator.comparing(r -> r.segments[r.segments.length - 1] == WILDCARD)); // stable
            return new Router(statics, ordered, notFound, builtIns);
        }
    }
}
