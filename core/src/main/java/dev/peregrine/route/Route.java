package dev.peregrine.route;

import dev.peregrine.Handler;
import dev.peregrine.http1.Methods;

import java.util.ArrayList;
import java.util.List;

/**
 * One path with its handlers by method, and the answers the router gives for it on its own:
 * {@code 405} with {@code Allow} for a method it lacks, {@code 204} with {@code Allow} for OPTIONS.
 * Immutable once the router is built.
 */
final class Route {
    final String pattern;
    final Handler[] byMethod = new Handler[Methods.COUNT];
    /**
     * What the router answers each of the usual methods with, once sealed ({@link #handlerFor}): read
     * by the router as it resolves, so a request costs one array load here.
     */
    final Handler[] resolved = new Handler[Methods.COUNT];
    /** Handlers of methods outside {@link Methods} (WebDAV, {@code PURGE}, {@code QUERY}...), by exact name. */
    final java.util.Map<String, Handler> otherMethods = new java.util.LinkedHashMap<>();
    /** Names of the {@code {param}} segments, in order; empty for a static path. */
    final String[] paramNames;
    /** Per segment: the literal bytes, or {@code null} for a parameter. Only for patterns. */
    final byte[][] segments;
    /** The route's number in its router (set when the router is built). */
    int id = -1;
    String allow;
    Handler methodNotAllowed;
    Handler options;

    Route(String pattern, String[] paramNames, byte[][] segments) {
        this.pattern = pattern;
        this.paramNames = paramNames;
        this.segments = segments;
    }

    /**
     * Computes {@code Allow} and the built-in handlers once all methods are registered, each wrapped
     * once by {@code builtIns} (the application's filters), so they run like any route's handler.
     */
    void seal(java.util.function.UnaryOperator<Handler> builtIns) {
        List<String> methods = new ArrayList<>();
        for (int m = 0; m < Methods.COUNT; m++) {
            if (byMethod[m] != null || (m == Methods.HEAD && byMethod[Methods.GET] != null) || m == Methods.OPTIONS) {
                methods.add(Methods.name(m));
            }
        }
        methods.addAll(otherMethods.keySet());
        allow = String.join(", ", methods);
        String allowValue = allow;
        methodNotAllowed = builtIns.apply((req, res) -> res.error(405).header("Allow", allowValue));
        options = builtIns.apply((req, res) -> res.status(204).header("Allow", allowValue));
        for (int m = 0; m < Methods.COUNT; m++) {
            resolved[m] = handlerFor(m);
        }
    }

    /**
     * The handler for a method outside {@link Methods} named {@code name}, or null when this route
     * has none.
     */
    Handler otherHandler(String name) {
        return otherMethods.get(name);
    }

    /** The handler for method {@code m}, with HEAD served by GET (RFC 9110 §9.3.2) and OPTIONS built in. */
    private Handler handlerFor(int m) {
        Handler h = byMethod[m];
        if (h != null) {
            return h;
        }
        if (m == Methods.HEAD && byMethod[Methods.GET] != null) {
            return byMethod[Methods.GET];
        }
        if (m == Methods.OPTIONS) {
            return options;
        }
        return methodNotAllowed;
    }
}
