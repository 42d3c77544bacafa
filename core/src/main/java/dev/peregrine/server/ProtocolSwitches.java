package dev.peregrine.server;

import dev.peregrine.exchange.RequestView;
import dev.peregrine.http1.ResponseEncoder;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.Protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The protocols an HTTP/1.1 server connection may hand itself to, and how each is chosen:
 * <ul>
 *   <li>{@code upgrade}: by token, on a request with {@code Upgrade: token} and {@code Connection:
 *       upgrade} (RFC 9110 §7.8). The server answers {@code 101 Switching Protocols}; bytes after the
 *       request go to the new protocol, including those that arrived in the same read.</li>
 *   <li>{@code priorKnowledge}: a connection whose first bytes are the HTTP/2 connection preface
 *       ({@code PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n}, RFC 9113 §3.4) is handed over with the preface
 *       unread.</li>
 *   <li>{@code alpn}: by the name TLS negotiated (RFC 7301), before the first byte is read.</li>
 * </ul>
 * Immutable once built. Thread: any.
 */
public final class ProtocolSwitches {
    /** {@link #beforeFirstRequest}: the connection stays HTTP/1.1. */
    public static final int STAY = 0;
    /** {@link #beforeFirstRequest}: switched, or waiting for the rest of the preface. */
    public static final int SWITCHED_OR_WAITING = 1;
    /** The HTTP/2 connection preface (RFC 9113 §3.4). */
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    public static final ProtocolSwitches NONE = new ProtocolSwitches(Map.of(), null, Map.of());

    /**
     * {@code b}'s switches so far. The builder's public API does not name {@link Protocol} (the
     * connection layer is not exported), so the registrations below are internal (for the protocols
     * Peregrine builds in and for tests on the class path) and kept on the builder as an extension
     * ({@link dev.peregrine.ServerEngine#extension}) the engine reads at start.
     */
    private static ProtocolSwitches get(dev.peregrine.Server.Builder b) {
        ProtocolSwitches s = dev.peregrine.ServerEngine.extension(b, ProtocolSwitches.class);
        return s == null ? NONE : s;
    }

    private static void set(dev.peregrine.Server.Builder b, ProtocolSwitches switches) {
        dev.peregrine.ServerEngine.extension(b, ProtocolSwitches.class, switches);
    }

    /** The switches of the server {@code plan} starts. */
    static ProtocolSwitches of(dev.peregrine.ServerEngine.Plan plan) {
        ProtocolSwitches s = plan.extension(ProtocolSwitches.class);
        return s == null ? NONE : s;
    }

    /**
     * Lets {@code b}'s connections switch to {@code protocol} on an HTTP/1.1 request carrying
     * {@code Upgrade: token} and {@code Connection: upgrade} without a body (RFC 9110 §7.8): the
     * server answers {@code 101 Switching Protocols} and the bytes after that request, including any
     * that arrived with it, are the new protocol's (WebSocket, h2c). {@code protocol} is asked for a
     * new instance per connection.
     */
    public static dev.peregrine.Server.Builder upgrade(dev.peregrine.Server.Builder b, String token,
                                                       Supplier<? extends Protocol> protocol) {
        java.util.Objects.requireNonNull(protocol, "protocol");
        return upgradeIf(b, token, req -> protocol.get());
    }

    /**
     * As {@link #upgrade(dev.peregrine.Server.Builder, String, Supplier)}, the protocol chosen from the
     * request: {@code protocol} returns null to decline (no 101; the request is answered as HTTP/1.1),
     * as h2c does without one valid {@code HTTP2-Settings} field (RFC 7540 §3.2.1).
     */
    public static dev.peregrine.Server.Builder upgradeIf(dev.peregrine.Server.Builder b, String token,
                                                         java.util.function.Function<RequestView, ? extends Protocol> protocol) {
        if (!dev.peregrine.buffer.HttpTokens.isToken(token)) {
            throw new IllegalArgumentException("upgrade token must be an RFC 9110 token: " + token);
        }
        set(b, get(b).withUpgrade(token, java.util.Objects.requireNonNull(protocol, "protocol")));
        return b;
    }

    /**
     * Hands {@code b}'s connections whose first bytes are the HTTP/2 connection preface (RFC 9113
     * §3.4, "prior knowledge") to {@code protocol}, preface unread. Without it such a connection is
     * answered as HTTP/1.1 would answer it (505).
     */
    public static dev.peregrine.Server.Builder priorKnowledge(dev.peregrine.Server.Builder b,
                                                              Supplier<? extends Protocol> protocol) {
        set(b, get(b).withPriorKnowledge(java.util.Objects.requireNonNull(protocol, "protocol")));
        return b;
    }

    /**
     * Offers {@code name} in TLS ALPN (RFC 7301) before {@code http/1.1} on {@code b}'s TLS
     * listeners, and hands connections whose client chose it to {@code protocol} before their first
     * byte is read.
     */
    public static dev.peregrine.Server.Builder alpn(dev.peregrine.Server.Builder b, String name,
                                                    Supplier<? extends Protocol> protocol) {
        if (name.isEmpty() || name.equals("http/1.1")) {
            throw new IllegalArgumentException("ALPN name must be non-empty and not http/1.1: " + name);
        }
        set(b, get(b).withAlpn(name, java.util.Objects.requireNonNull(protocol, "protocol")));
        return b;
    }

    private final Map<String, java.util.function.Function<RequestView, ? extends Protocol>> upgrades;
    private final Supplier<? extends Protocol> priorKnowledge;
    private final Map<String, Supplier<? extends Protocol>> alpn;

    private ProtocolSwitches(Map<String, java.util.function.Function<RequestView, ? extends Protocol>> upgrades, Supplier<? extends Protocol> priorKnowledge,
                             Map<String, Supplier<? extends Protocol>> alpn) {
        this.upgrades = upgrades;
        this.priorKnowledge = priorKnowledge;
        this.alpn = alpn;
    }

    /** A copy that also upgrades to {@code protocol} on {@code Upgrade: token} (case-insensitive). */
    public ProtocolSwitches withUpgrade(String token, java.util.function.Function<RequestView, ? extends Protocol> protocol) {
        Map<String, java.util.function.Function<RequestView, ? extends Protocol>> m = new LinkedHashMap<>(upgrades);
        m.put(token.toLowerCase(Locale.ROOT), protocol);
        return new ProtocolSwitches(Collections.unmodifiableMap(m), priorKnowledge, alpn);
    }

    /** A copy that hands connections starting with the HTTP/2 preface to {@code protocol}. */
    public ProtocolSwitches withPriorKnowledge(Supplier<? extends Protocol> protocol) {
        return new ProtocolSwitches(upgrades, protocol, alpn);
    }

    /** A copy that offers {@code name} in ALPN and hands connections that choose it to {@code protocol}. */
    public ProtocolSwitches withAlpn(String name, Supplier<? extends Protocol> protocol) {
        Map<String, Supplier<? extends Protocol>> m = new LinkedHashMap<>(alpn);
        m.put(name, protocol);
        return new ProtocolSwitches(upgrades, priorKnowledge, Collections.unmodifiableMap(m));
    }

    /** Whether {@code token} has an upgrade registered. */
    public boolean upgrades(String token) {
        return upgrades.containsKey(token.toLowerCase(Locale.ROOT));
    }

    public Supplier<? extends Protocol> priorKnowledge() {
        return priorKnowledge;
    }

    /** ALPN names besides {@code http/1.1}, in the server's order of preference. */
    public Map<String, Supplier<? extends Protocol>> alpn() {
        return alpn;
    }

    /**
     * Before a connection's first request: switches {@code c} if TLS negotiated one of the ALPN
     * protocols, or if the bytes {@code [start, end)} begin with the HTTP/2 preface and a protocol
     * takes it (the preface stays unread for it). Returns {@link #STAY} or {@link #SWITCHED_OR_WAITING}
     * (also while the bytes so far are a prefix of the preface).
     */
    int beforeFirstRequest(Connection c, ByteBuffer buf, int start, int end) {
        String chosen = c.endpoint().applicationProtocol();
        if (chosen != null) {
            Supplier<? extends Protocol> p = alpn.get(chosen);
            if (p != null) {
                c.switchTo(p.get());
                return SWITCHED_OR_WAITING;
            }
        }
        if (priorKnowledge != null) {
            int n = Math.min(end - start, PREFACE.length);
            for (int i = 0; i < n; i++) {
                if (buf.get(start + i) != PREFACE[i]) {
                    return notHttp(c, buf, start, end) ? SWITCHED_OR_WAITING : STAY;
                }
            }
            if (n == PREFACE.length) {
                c.switchTo(priorKnowledge.get());
            }
            return SWITCHED_OR_WAITING;
        }
        return STAY;
    }

    /**
     * With prior knowledge on: a first line, here whole, that names no HTTP version at all is neither
     * HTTP/1.x nor the HTTP/2 preface. RFC 9113 §3.4 makes a bad preface a connection error, and
     * before anything is negotiated that is a close without an answer (h2spec 3.5/2); an HTTP/1.x
     * client always sends {@code HTTP/1.x}, and any line that does (in any case: a lowercase {@code http/1.1}
     * is HTTP/1.1's 400 to give) still gets its 400 or 505. Empty lines before it are not a first line
     * (RFC 9112 §2.2 lets a request follow them): HTTP/1.1 judges.
     */
    private static boolean notHttp(Connection c, ByteBuffer buf, int start, int end) {
        while (start < end && (buf.get(start) == '\r' || buf.get(start) == '\n')) {
            start++;
        }
        for (int i = start; i < end; i++) {
            if (buf.get(i) == '\n') {
                for (int k = start; k + 6 <= i; k++) {
                    if (buf.get(k) == ' ' && (buf.get(k + 1) | 0x20) == 'h' && (buf.get(k + 2) | 0x20) == 't'
                            && (buf.get(k + 3) | 0x20) == 't' && (buf.get(k + 4) | 0x20) == 'p' && buf.get(k + 5) == '/') {
                        return false;
                    }
                }
                c.close();
                return true;
            }
        }
        return false;
    }

    /**
     * RFC 9110 §7.8: a request naming a registered protocol in {@code Upgrade}, with the {@code upgrade}
     * option in {@code Connection}, is answered {@code 101 Switching Protocols} and {@code c} goes to
     * that protocol. HTTP/1.0 requests and requests with a body stay HTTP/1.1 (the body would have to
     * be read first), so the Upgrade header is then ignored, as the RFC allows. Returns whether it
     * switched. Asked only for a request whose {@code Connection} has the option (the parser's
     * {@code connectionUpgrade}, any case, any of its lines): no other request comes here.
     */
    boolean upgrade(Connection c, RequestView req, ResponseEncoder encoder) {
        if (upgrades.isEmpty() || !req.connectionUpgrade() || req.versionNumber() != 11 || req.isChunked() || req.contentLength() > 0) {
            return false;
        }
        String upgrade = req.header("Upgrade");
        if (upgrade == null) {
            return false;
        }
        for (String offered : upgrade.split(",")) {
            String token = offered.trim();
            java.util.function.Function<RequestView, ? extends Protocol> p = upgrades.get(token.toLowerCase(Locale.ROOT));
            Protocol next = p == null ? null : p.apply(req);
            if (next != null) {
                encoder.encodeInterim(101, new String[] {"Connection", "Upgrade", "Upgrade", token}, c);
                c.switchTo(next);
                return true;
            }
        }
        return false;
    }
}
