package dev.peregrine.transport;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * A peer's IPv4 address and port packed in one {@code long}, so that an endpoint keeps 8 bytes instead
 * of the four objects of an {@link InetSocketAddress} (96 bytes: the address, its holder, the
 * {@link Inet4Address} and its holder) and makes those only when asked (issue 28: an idle connection's
 * memory). Every request view asks its endpoint lazily, so a connection whose handlers never want the
 * address never makes one.
 * <pre>
 *   bit 63..48   47..16             15..0
 *   0 ... 0      IPv4 (big-endian)  port        NONE (-1): not packable (IPv6, unresolved)
 * </pre>
 */
public final class PeerAddress {
    /** {@link #pack}: the address is kept as it is. */
    public static final long NONE = -1;

    private PeerAddress() {
    }

    /** {@code a} packed, or {@link #NONE} when it is not a resolved IPv4 address. */
    public static long pack(InetSocketAddress a) {
        if (a == null || !(a.getAddress() instanceof Inet4Address)) {
            return NONE;
        }
        byte[] ip = a.getAddress().getAddress();
        long v = (ip[0] & 0xffL) << 24 | (ip[1] & 0xff) << 16 | (ip[2] & 0xff) << 8 | (ip[3] & 0xff);
        return v << 16 | a.getPort();
    }

    /** The address {@link #pack} packed (a new object: the caller caches it). */
    public static InetSocketAddress unpack(long packed) {
        byte[] ip = {(byte) (packed >>> 40), (byte) (packed >>> 32), (byte) (packed >>> 24), (byte) (packed >>> 16)};
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), (int) (packed & 0xffff));
        } catch (UnknownHostException e) {
            throw new AssertionError(e); // four bytes are always an address
        }
    }
}
