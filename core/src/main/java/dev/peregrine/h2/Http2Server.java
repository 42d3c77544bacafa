package dev.peregrine.h2;

import dev.peregrine.exchange.RequestView;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.Protocol;

import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The three ways into {@link Http2Connection}, as the protocol-switch registrations want them:
 * prior knowledge and ALPN (a new connection), and the h2c upgrade (declining requests that do not
 * qualify). Thread: any (immutable).
 */
public final class Http2Server {
    /** The server's settings with its dispatch function bound, once: each connection holds just them. */
    private final Http2Settings settings;

    public Http2Server(Http2Settings settings, Function<LoopContext, StreamDispatch> dispatchOf) {
        this.settings = settings.withDispatch(dispatchOf);
    }

    /** For prior knowledge (RFC 9113 §3.3) and ALPN {@code h2} (§3.2). */
    public Supplier<Protocol> direct() {
        return () -> new Http2Connection(settings, (Http2Upgrade) null);
    }

    /** For {@code Upgrade: h2c}: null (declined) unless the request carries valid HTTP2-Settings. */
    public Function<RequestView, Protocol> upgrade() {
        return req -> {
            Http2Upgrade u = Http2Upgrade.of(req);
            return u == null ? null : new Http2Connection(settings, u);
        };
    }
}
