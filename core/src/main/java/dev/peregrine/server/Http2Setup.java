package dev.peregrine.server;

import dev.peregrine.h2.Http2Server;
import dev.peregrine.h2.Http2Settings;

/**
 * Registers HTTP/2 on a server's protocol switches ({@code Server.Builder.http2}): prior knowledge on
 * the plain port (RFC 9113 §3.3), ALPN {@code h2} on TLS ports, offered before {@code http/1.1}
 * (§3.2), and {@code Upgrade: h2c} (RFC 7540 §3.2). A registration already made for one of them (a
 * test's own protocol) is left as it is. Thread: the starting thread.
 */
public final class Http2Setup {
    private Http2Setup() {
    }

    public static ProtocolSwitches register(ProtocolSwitches switches, Http2Settings settings) {
        Http2Server h2 = new Http2Server(settings, ctx -> ServerLoop.of(ctx).http2());
        ProtocolSwitches s = switches;
        if (s.priorKnowledge() == null) {
            s = s.withPriorKnowledge(h2.direct());
        }
        if (!s.alpn().containsKey("h2")) {
            s = s.withAlpn("h2", h2.direct());
        }
        if (!s.upgrades("h2c")) {
            s = s.withUpgrade("h2c", h2.upgrade());
        }
        return s;
    }
}
