package dev.peregrine.proxy;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The PROXY protocol (v1 and v2) on a listener: which peers may send the header, and how long a v2
 * header may be. Set with {@code Server.Builder.proxyProtocol(ProxyProtocol.trusting("10.0.0.0/8",
 * "127.0.0.1"))} or from outside with {@code peregrine.proxyProtocol=10.0.0.0/8,127.0.0.1}.
 *
 * <p>Every connection to such a listener must begin with a header (spec section 2: a receiver
 * configured for it must not guess), and only from a trusted peer: a connection from any other
 * address, or whose header is malformed, is closed with one DEBUG line on logger
 * {@code dev.peregrine.proxy} and counted in {@code peregrine.proxy.rejected}. The header's source
 * becomes {@code req.remoteAddress()}; a {@code LOCAL} (v2) or {@code UNKNOWN} (v1) header keeps the
 * socket's peer. Under TLS the header comes before the handshake, as HAProxy's
 * {@code send-proxy-v2} sends it.
 *
 * <p>Immutable. Thread: any.
 */
public final class ProxyProtocol {
    private final List<Cidr> trusted;
    private final int maxHeaderLength;

    private ProxyProtocol(List<Cidr> trusted, int maxHeaderLength) {
        this.trusted = trusted;
        this.maxHeaderLength = maxHeaderLength;
    }

    /**
     * PROXY protocol from peers in {@code cidrs} only: IPv4 or IPv6 blocks ({@code 10.0.0.0/8},
     * {@code fd00::/8}) or single addresses ({@code 127.0.0.1}, {@code ::1}).
     *
     * @throws IllegalArgumentException when none is given or one is not an address literal (see {@link Cidr#parse})
     */
    public static ProxyProtocol trusting(String... cidrs) {
        return trusting(List.of(cidrs));
    }

    /** {@link #trusting(String...)} from a collection. */
    public static ProxyProtocol trusting(Collection<String> cidrs) {
        if (cidrs.isEmpty()) {
            throw new IllegalArgumentException("the PROXY protocol needs at least one trusted address or block");
        }
        List<Cidr> list = new ArrayList<>();
        for (String c : cidrs) {
            list.add(Cidr.parse(c));
        }
        return new ProxyProtocol(List.copyOf(list), ProxyHeaderDecoder.DEFAULT_MAX_LENGTH);
    }

    /**
     * Parses the outside form, blocks separated by commas: {@code "10.0.0.0/8, 127.0.0.1"}.
     *
     * @throws IllegalArgumentException when it is empty or a block does not parse
     */
    public static ProxyProtocol parse(String list) {
        List<String> parts = new ArrayList<>();
        for (String p : list.split(",", -1)) {
            if (p.isBlank()) {
                throw new IllegalArgumentException("empty address block in '" + list + "'");
            }
            parts.add(p.trim());
        }
        return trusting(parts);
    }

    /**
     * A copy accepting v2 headers (addresses and TLVs) of up to {@code bytes}: 232..65551. Default
     * {@value ProxyHeaderDecoder#DEFAULT_MAX_LENGTH}, room for the addresses and a few hundred bytes
     * of TLVs (HAProxy's {@code send-proxy-v2-ssl} and AWS's VPC endpoint id fit).
     */
    public ProxyProtocol maxHeaderLength(int bytes) {
        // throws IllegalArgumentException outside 232..65551
        new ProxyHeaderDecoder(bytes); // the same check
        return new ProxyProtocol(trusted, bytes);
    }

    public int maxHeaderLength() {
        return maxHeaderLength;
    }

    /** The trusted blocks, in the order given. */
    public List<Cidr> trusted() {
        return trusted;
    }

    /** Whether a connection from {@code peer} may send a header. */
    public boolean trusts(InetAddress peer) {
        for (Cidr c : trusted) {
            if (c.contains(peer)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "ProxyProtocol" + trusted;
    }
}
