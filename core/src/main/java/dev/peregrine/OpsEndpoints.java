package dev.peregrine;

import dev.peregrine.metrics.JvmMetrics;
import dev.peregrine.metrics.PrometheusText;

/**
 * The operations endpoints of {@link Server.Builder#metricsEndpoint} and
 * {@link Server.Builder#healthEndpoints}. All run on the loop: they read volatile state or counters
 * with plain loads, format a few hundred bytes and never wait, so they cannot block it. The metrics
 * text allocates (a scrape every few seconds, not the request path).
 */
final class OpsEndpoints {
    private OpsEndpoints() {
    }

    /**
     * The server a builder started, set once by {@link Server.Builder#start()}. A request that comes
     * in between the loops starting and the server object existing sees null (and gets 503).
     */
    static final class ServerRef {
        volatile Server server;
        /** A {@link TestClient}'s loop: its metrics while no server runs. */
        volatile java.util.function.Supplier<Metrics> local;
        /** The endpoints are registered on the builder (once: a TestClient and a start share them). */
        boolean registered;

        /** The metrics to show, or null while starting. */
        Metrics metrics() {
            Server s = server;
            if (s != null) {
                return s.metrics();
            }
            java.util.function.Supplier<Metrics> l = local;
            return l == null ? null : l.get();
        }

        /** Ready: a started server not draining, or a TestClient. Null while starting. */
        Boolean ready() {
            Server s = server;
            if (s != null) {
                return s.ready();
            }
            return local != null ? Boolean.TRUE : null;
        }
    }

    /**
     * Registers the endpoints the builder asked for (at start or at {@code TestClient.of}, so a later
     * builder call replaces an outside value); once per builder.
     */
    static void register(Server.Builder builder, ServerRef ref) {
        if (ref.registered) {
            return;
        }
        ref.registered = true;
        if (builder.metricsPath != null) {
            builder.get(builder.metricsPath, Execution.LOOP, metrics(ref));
        }
        if (builder.livePath != null) {
            builder.get(builder.livePath, Execution.LOOP, live());
            builder.get(builder.readyPath, Execution.LOOP, ready(ref));
        }
    }

    static String checkPath(String path, String setting) {
        if (path == null || !path.startsWith("/")) {
            throw new IllegalArgumentException(setting + " path must start with '/': " + path);
        }
        return path;
    }

    static Handler metrics(ServerRef ref) {
        return (req, res) -> {
            Metrics metrics = ref.metrics();
            if (metrics == null) {
                res.status(503).text("starting\n");
                return;
            }
            PrometheusText text = PrometheusText.forAccept(req.header("Accept"));
            metrics.describe(text);
            JvmMetrics.describe(text);
            res.contentType(text.contentType()).body(text.text());
        };
    }

    static Handler live() {
        return (req, res) -> res.text("live\n");
    }

    static Handler ready(ServerRef ref) {
        return (req, res) -> {
            Boolean ready = ref.ready();
            if (ready == Boolean.TRUE) {
                res.text("ready\n");
            } else {
                res.status(503).text(ready == null ? "starting\n" : "draining\n");
            }
        };
    }
}
