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
    }

    /** Registers the endpoints the builder asked for (at start, so a later builder call replaces an outside value). */
    static void register(Server.Builder builder, ServerRef ref) {
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
            Server server = ref.server;
            if (server == null) {
                res.status(503).text("starting\n");
                return;
            }
            PrometheusText text = PrometheusText.forAccept(req.header("Accept"));
            server.metrics().describe(text);
            JvmMetrics.describe(text);
            res.contentType(text.contentType()).body(text.text());
        };
    }

    static Handler live() {
        return (req, res) -> res.text("live\n");
    }

    static Handler ready(ServerRef ref) {
        return (req, res) -> {
            Server server = ref.server;
            if (server != null && server.ready()) {
                res.text("ready\n");
            } else {
                res.status(503).text(server == null ? "starting\n" : "draining\n");
            }
        };
    }
}
