package dev.peregrine.proxy;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * One block of addresses, written {@code 10.0.0.0/8}, {@code fd00::/8}, or a single address
 * ({@code 127.0.0.1}, {@code ::1}: all of its bits). Only literals are accepted: no name is ever
 * looked up. An IPv4 block also matches the IPv4-mapped IPv6 form of its addresses
 * ({@code ::ffff:10.1.2.3}), which a dual-stack socket may report. Immutable. Thread: any.
 */
public final class Cidr {
    private final byte[] network;
    private final int prefix;
    private final String text;

    private Cidr(byte[] network, int prefix, String text) {
        this.network = network;
        this.prefix = prefix;
        this.text = text;
    }

    /**
     * Parses {@code address[/prefix]}.
     *
     * @throws IllegalArgumentException when it is not an IPv4 or IPv6 literal with a prefix in range
     *         (0..32 or 0..128), or bits are set past the prefix ({@code 10.1.0.0/8} is a typo of
     *         {@code 10.0.0.0/8} or of {@code 10.1.0.0/16}; refusing it keeps the intent plain)
     */
    public static Cidr parse(String text) {
        String s = text.trim();
        int slash = s.indexOf('/');
        String address = slash < 0 ? s : s.substring(0, slash);
        byte[] bytes = literal(address, text);
        int bits = bytes.length * 8;
        int prefix = bits;
        if (slash >= 0) {
            String p = s.substring(slash + 1);
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw new IllegalArgumentException("bad prefix length in " + text);
            }
            prefix = Integer.parseInt(p);
            if (prefix > bits) {
                throw new IllegalArgumentException("prefix length above " + bits + " in " + text);
            }
        }
        for (int i = prefix; i < bits; i++) {
            if ((bytes[i >> 3] & (0x80 >>> (i & 7))) != 0) {
                throw new IllegalArgumentException("address has bits set past the prefix: " + text);
            }
        }
        return new Cidr(bytes, prefix, s);
    }

    /** Whether {@code address} lies in this block. */
    public boolean contains(InetAddress address) {
        byte[] a = address.getAddress();
        if (a.length == 16 && network.length == 4 && isMappedIpv4(a)) {
            a = java.util.Arrays.copyOfRange(a, 12, 16);
        } else if (a.length == 4 && network.length == 16) {
            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xFF;
            mapped[11] = (byte) 0xFF;
            System.arraycopy(a, 0, mapped, 12, 4);
            a = mapped;
        }
        if (a.length != network.length) {
            return false;
        }
        int full = prefix >> 3;
        for (int i = 0; i < full; i++) {
            if (a[i] != network[i]) {
                return false;
            }
        }
        int rest = prefix & 7;
        if (rest == 0) {
            return true;
        }
        int mask = (0xFF00 >>> rest) & 0xFF;
        return (a[full] & mask) == (network[full] & mask);
    }

    private static boolean isMappedIpv4(byte[] a) {
        for (int i = 0; i < 10; i++) {
            if (a[i] != 0) {
                return false;
            }
        }
        return a[10] == (byte) 0xFF && a[11] == (byte) 0xFF;
    }

    /** The address's bytes: 4 for a dotted quad, 16 for an IPv6 literal; never a name lookup. */
    private static byte[] literal(String address, String text) {
        if (address.indexOf(':') < 0) {
            String[] parts = address.split("\\.", -1);
            if (parts.length != 4) {
                throw new IllegalArgumentException("not an IPv4 or IPv6 address: " + text);
            }
            byte[] b = new byte[4];
            for (int i = 0; i < 4; i++) {
                String part = parts[i];
                if (part.isEmpty() || part.length() > 3 || !part.chars().allMatch(c -> c >= '0' && c <= '9')
                        || Integer.parseInt(part) > 255) {
                    throw new IllegalArgumentException("not an IPv4 or IPv6 address: " + text);
                }
                b[i] = (byte) Integer.parseInt(part);
            }
            return b;
        }
        if (!address.chars().allMatch(c -> c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
                || c == ':' || c == '.')) {
            throw new IllegalArgumentException("not an IPv4 or IPv6 address: " + text);
        }
        try {
            byte[] b = InetAddress.getByName(address).getAddress(); // with ':' a literal: parsed, never looked up
            if (b.length == 4) {
                // "::ffff:1.2.3.4" comes back as IPv4; keep the family the user wrote.
                byte[] mapped = new byte[16];
                mapped[10] = (byte) 0xFF;
                mapped[11] = (byte) 0xFF;
                System.arraycopy(b, 0, mapped, 12, 4);
                return mapped;
            }
            return b;
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IPv4 or IPv6 address: " + text);
        }
    }

    @Override
    public String toString() {
        return text;
    }
}
