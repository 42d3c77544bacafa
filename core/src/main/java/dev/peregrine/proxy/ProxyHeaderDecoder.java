package dev.peregrine.proxy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

/**
 * Decodes the PROXY protocol header (HAProxy, proxy-protocol.txt, versions 1 and 2) that a load
 * balancer writes before the client's first byte. Pure: no socket, no state between calls, no
 * allocation until a header is complete. {@code proxy.engine.ProxyEndpoint} feeds it the bytes of each connection
 * of a listener with {@link ProxyProtocol} set.
 *
 * <p><b>Restartable, like {@code HeadParser}.</b> {@link #decode} is given every byte received so far
 * from the connection's first one; it returns the header, or {@code null} when more bytes are needed,
 * or throws {@link ProxyProtocolException}. It fails as early as the bytes allow (a first byte that
 * starts neither version fails at once), so the outcome does not depend on how the input was split.
 *
 * <pre>
 * v1 (section 2.1), text, at most 107 bytes with the CRLF:
 *   "PROXY TCP4 " src4 " " dst4 " " srcport " " dstport "\r\n"
 *   "PROXY TCP6 " src6 " " dst6 " " srcport " " dstport "\r\n"
 *   "PROXY UNKNOWN" [anything but CRLF] "\r\n"          (use the connection's addresses)
 *
 * v2 (section 2.2), binary, network byte order:
 *   0                  12        13        14     16
 *   +------------------+---------+---------+------+--------------------------------------+
 *   | signature (12)   | ver|cmd | fam|prt | len  | addresses, then TLVs (len bytes)     |
 *   | 0D0A0D0A000D0A51 | 0x2 0/1 | 0..3 0..2| u16  | INET 12, INET6 36, UNIX 216 bytes   |
 *   |   5549540A       |         |         |      | TLV: type u8, length u16, value      |
 *   +------------------+---------+---------+------+--------------------------------------+
 *   cmd 0 LOCAL (health check: use the connection's addresses), 1 PROXY.
 *   fam 0 UNSPEC, 1 INET, 2 INET6, 3 UNIX; prt 0 UNSPEC, 1 STREAM, 2 DGRAM.
 * </pre>
 *
 * <table>
 *   <caption>rejections (the connection is closed)</caption>
 *   <tr><th>case</th><th>rule</th></tr>
 *   <tr><td>first bytes are neither {@code "PROXY "} nor the v2 signature</td><td>2: no header where one is required</td></tr>
 *   <tr><td>v1 without CRLF within 107 bytes; a lone CR or LF</td><td>2.1</td></tr>
 *   <tr><td>v1 protocol other than TCP4, TCP6, UNKNOWN; not exactly single spaces; an address that is
 *       not a literal of that family (no name is ever resolved); a port outside 0..65535 or with a
 *       leading zero; more or fewer than four fields</td><td>2.1</td></tr>
 *   <tr><td>v2 version other than 2; command other than LOCAL or PROXY</td><td>2.2</td></tr>
 *   <tr><td>v2 PROXY over INET/INET6 with a transport other than STREAM (this server speaks TCP)</td><td>2.2</td></tr>
 *   <tr><td>v2 length shorter than its family's addresses, or header above {@code maxLength}</td><td>2.2</td></tr>
 *   <tr><td>v2 TLV running past the header's end (TLVs are otherwise skipped)</td><td>2.2.7</td></tr>
 * </table>
 *
 * Thread: any; an instance holds only its limit.
 */
public final class ProxyHeaderDecoder {
    /** Longest v1 header, CRLF included (section 2.1). */
    public static final int V1_MAX_LENGTH = 107;
    /** Fixed part of a v2 header: signature, version/command, family/transport, length. */
    public static final int V2_FIXED_LENGTH = 16;
    /** Default limit on a whole v2 header: the addresses of any family plus a few hundred bytes of TLVs. */
    public static final int DEFAULT_MAX_LENGTH = 512;

    private static final byte[] V1_PREFIX = {'P', 'R', 'O', 'X', 'Y', ' '};
    private static final byte[] V2_SIGNATURE = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};

    private final int maxLength;

    /** A decoder with the default v2 limit ({@value #DEFAULT_MAX_LENGTH} bytes). */
    public ProxyHeaderDecoder() {
        this(DEFAULT_MAX_LENGTH);
    }

    /** @param maxLength largest v2 header accepted, in bytes: at least 232 (16 + the UNIX addresses), at most 65,551 */
    public ProxyHeaderDecoder(int maxLength) {
        if (maxLength < V2_FIXED_LENGTH + 216 || maxLength > V2_FIXED_LENGTH + 65535) {
            throw new IllegalArgumentException("maxLength must be 232..65551: " + maxLength);
        }
        this.maxLength = maxLength;
    }

    /**
     * Decodes the header at the start of {@code in[start, end)}: every byte received so far, from the
     * connection's first. Does not move the buffer's position or limit.
     *
     * @return the header ({@link ProxyHeader#length()} bytes of the input are its own), or null when the
     *         input is a valid beginning that needs more bytes
     * @throws ProxyProtocolException when the bytes cannot begin or be a valid header
     */
    public ProxyHeader decode(ByteBuffer in, int start, int end) throws ProxyProtocolException {
        int n = end - start;
        if (n <= 0) {
            return null;
        }
        byte first = in.get(start);
        if (first == 'P') {
            expectPrefix(in, start, n, V1_PREFIX, "not a PROXY header");
            return n < V1_PREFIX.length ? null : decodeV1(in, start, end);
        }
        if (first == 0x0D) {
            expectPrefix(in, start, n, V2_SIGNATURE, "not a PROXY v2 signature");
            return n < V2_FIXED_LENGTH ? checkV2Fixed(in, start, n) : decodeV2(in, start, end);
        }
        throw new ProxyProtocolException("not a PROXY header (first byte 0x" + Integer.toHexString(first & 0xFF) + ")");
    }

    private static void expectPrefix(ByteBuffer in, int start, int n, byte[] prefix, String what) throws ProxyProtocolException {
        for (int i = 0; i < Math.min(n, prefix.length); i++) {
            if (in.get(start + i) != prefix[i]) {
                throw new ProxyProtocolException(what);
            }
        }
    }

    // ---- version 1 ---------------------------------------------------------------------------------

    private static ProxyHeader decodeV1(ByteBuffer in, int start, int end) throws ProxyProtocolException {
        int limit = Math.min(end, start + V1_MAX_LENGTH);
        int lf = -1;
        for (int i = start + V1_PREFIX.length; i < limit; i++) {
            byte b = in.get(i);
            if (b == '\n') {
                if (in.get(i - 1) != '\r') {
                    throw new ProxyProtocolException("v1: LF without CR");
                }
                lf = i;
                break;
            }
            if (b == '\r' && i + 1 < end && in.get(i + 1) != '\n') {
                throw new ProxyProtocolException("v1: CR without LF");
            }
        }
        if (lf < 0) {
            if (end - start >= V1_MAX_LENGTH) {
                throw new ProxyProtocolException("v1: no CRLF within 107 bytes");
            }
            checkV1Protocol(in, start + V1_PREFIX.length, end, false);
            return null;
        }
        int lineEnd = lf - 1; // the CR
        int length = lf + 1 - start;
        int p = start + V1_PREFIX.length;
        int protocol = checkV1Protocol(in, p, lineEnd, true);
        if (protocol == 0) {
            return new ProxyHeader(1, true, null, null, length);
        }
        String[] fields = new String[4];
        p += 5; // "TCP4 " or "TCP6 "
        for (int f = 0; f < 4; f++) {
            int q = p;
            while (q < lineEnd && in.get(q) != ' ') {
                q++;
            }
            if (q == p) {
                throw new ProxyProtocolException("v1: empty field or double space");
            }
            if ((f < 3) != (q < lineEnd)) {
                throw new ProxyProtocolException("v1: expected 4 fields after the protocol");
            }
            fields[f] = ascii(in, p, q);
            p = q + 1;
        }
        InetAddress src = protocol == 4 ? ipv4(fields[0]) : ipv6(fields[0]);
        InetAddress dst = protocol == 4 ? ipv4(fields[1]) : ipv6(fields[1]);
        return new ProxyHeader(1, false, new InetSocketAddress(src, port(fields[2])),
                new InetSocketAddress(dst, port(fields[3])), length);
    }

    /**
     * Checks the protocol word at {@code p}: returns 4, 6, or 0 for UNKNOWN. With {@code complete}
     * false only the bytes present are judged (a valid beginning passes).
     */
    private static int checkV1Protocol(ByteBuffer in, int p, int end, boolean complete) throws ProxyProtocolException {
        String[] words = {"TCP4 ", "TCP6 ", "UNKNOWN"};
        for (int w = 0; w < words.length; w++) {
            String word = words[w];
            int k = 0;
            while (k < word.length() && p + k < end && in.get(p + k) == word.charAt(k)) {
                k++;
            }
            if (k == word.length() || (!complete && p + k == end)) {
                if (w == 2 && k == word.length() && p + k < end && in.get(p + k) != ' ' && in.get(p + k) != '\r') {
                    continue; // "UNKNOWNX": not the word
                }
                return w == 0 ? 4 : w == 1 ? 6 : 0;
            }
        }
        throw new ProxyProtocolException("v1: protocol must be TCP4, TCP6 or UNKNOWN");
    }

    private static String ascii(ByteBuffer in, int from, int to) throws ProxyProtocolException {
        char[] c = new char[to - from];
        for (int i = from; i < to; i++) {
            byte b = in.get(i);
            if (b <= ' ' || b >= 0x7F) {
                throw new ProxyProtocolException("v1: control or non-ASCII byte in a field");
            }
            c[i - from] = (char) b;
        }
        return new String(c);
    }

    /** Dotted quad, each part 0..255 without leading zeros (no octal ambiguity); never resolved. */
    private static InetAddress ipv4(String s) throws ProxyProtocolException {
        String[] parts = s.split("\\.", -1);
        if (parts.length != 4) {
            throw new ProxyProtocolException("v1: not an IPv4 address");
        }
        byte[] a = new byte[4];
        for (int i = 0; i < 4; i++) {
            a[i] = (byte) decimal(parts[i], 255, "v1: not an IPv4 address");
        }
        try {
            return InetAddress.getByAddress(a);
        } catch (UnknownHostException e) {
            throw new ProxyProtocolException("v1: not an IPv4 address");
        }
    }

    /** An IPv6 literal (hex digits, colons, an embedded dotted quad); never resolved. */
    private static InetAddress ipv6(String s) throws ProxyProtocolException {
        if (s.indexOf(':') < 0 || s.length() > 45) {
            throw new ProxyProtocolException("v1: not an IPv6 address");
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == ':' || c == '.';
            if (!ok) {
                throw new ProxyProtocolException("v1: not an IPv6 address");
            }
        }
        try {
            // A string with ':' is parsed as a literal and never looked up; an invalid one throws.
            return InetAddress.getByName(s);
        } catch (UnknownHostException e) {
            throw new ProxyProtocolException("v1: not an IPv6 address");
        }
    }

    private static int port(String s) throws ProxyProtocolException {
        return decimal(s, 65535, "v1: port must be 0..65535");
    }

    private static int decimal(String s, int max, String message) throws ProxyProtocolException {
        if (s.isEmpty() || s.length() > 5 || (s.length() > 1 && s.charAt(0) == '0')) {
            throw new ProxyProtocolException(message);
        }
        int v = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                throw new ProxyProtocolException(message);
            }
            v = v * 10 + (c - '0');
        }
        if (v > max) {
            throw new ProxyProtocolException(message);
        }
        return v;
    }

    // ---- version 2 ---------------------------------------------------------------------------------

    /** Judges what is present of the fixed part before it is whole, so a bad byte fails at once. */
    private ProxyHeader checkV2Fixed(ByteBuffer in, int start, int n) throws ProxyProtocolException {
        if (n > 12) {
            checkVersionCommand(in.get(start + 12));
        }
        if (n > 13) {
            checkFamily(in.get(start + 13));
        }
        return null;
    }

    private static int checkVersionCommand(byte b) throws ProxyProtocolException {
        if ((b & 0xF0) != 0x20) {
            throw new ProxyProtocolException("v2: version must be 2");
        }
        int command = b & 0x0F;
        if (command > 1) {
            throw new ProxyProtocolException("v2: command must be LOCAL or PROXY");
        }
        return command;
    }

    private static int checkFamily(byte b) throws ProxyProtocolException {
        int family = (b & 0xF0) >> 4;
        int transport = b & 0x0F;
        if (family > 3 || transport > 2) {
            throw new ProxyProtocolException("v2: unknown address family or transport");
        }
        return b & 0xFF;
    }

    private ProxyHeader decodeV2(ByteBuffer in, int start, int end) throws ProxyProtocolException {
        int command = checkVersionCommand(in.get(start + 12));
        int famTransport = checkFamily(in.get(start + 13));
        int family = famTransport >> 4;
        int transport = famTransport & 0x0F;
        int len = ((in.get(start + 14) & 0xFF) << 8) | (in.get(start + 15) & 0xFF);
        int length = V2_FIXED_LENGTH + len;
        if (length > maxLength) {
            throw new ProxyProtocolException("v2: header of " + length + " bytes exceeds the limit of " + maxLength);
        }
        int addressBytes = family == 1 ? 12 : family == 2 ? 36 : family == 3 ? 216 : 0;
        if (len < addressBytes) {
            throw new ProxyProtocolException("v2: length " + len + " shorter than the addresses of family " + family);
        }
        boolean inet = family == 1 || family == 2;
        if (command == 1 && inet && transport != 1) {
            throw new ProxyProtocolException("v2: only STREAM transport is accepted");
        }
        if (end - start < length) {
            return null;
        }
        int a = start + V2_FIXED_LENGTH;
        checkTlvs(in, a + addressBytes, start + length);
        if (command == 0 || !inet) {
            return new ProxyHeader(2, true, null, null, length);
        }
        int size = family == 1 ? 4 : 16;
        InetAddress src = address(in, a, size);
        InetAddress dst = address(in, a + size, size);
        int srcPort = ((in.get(a + 2 * size) & 0xFF) << 8) | (in.get(a + 2 * size + 1) & 0xFF);
        int dstPort = ((in.get(a + 2 * size + 2) & 0xFF) << 8) | (in.get(a + 2 * size + 3) & 0xFF);
        return new ProxyHeader(2, false, new InetSocketAddress(src, srcPort), new InetSocketAddress(dst, dstPort), length);
    }

    /** TLVs are skipped, but each must end within the header (section 2.2.7). */
    private static void checkTlvs(ByteBuffer in, int p, int end) throws ProxyProtocolException {
        while (p < end) {
            if (end - p < 3) {
                throw new ProxyProtocolException("v2: truncated TLV");
            }
            int valueLength = ((in.get(p + 1) & 0xFF) << 8) | (in.get(p + 2) & 0xFF);
            p += 3 + valueLength;
            if (p > end) {
                throw new ProxyProtocolException("v2: TLV runs past the header");
            }
        }
    }

    private static InetAddress address(ByteBuffer in, int at, int size) throws ProxyProtocolException {
        byte[] a = new byte[size];
        for (int i = 0; i < size; i++) {
            a[i] = in.get(at + i);
        }
        try {
            return InetAddress.getByAddress(a);
        } catch (UnknownHostException e) {
            throw new ProxyProtocolException("v2: bad address");
        }
    }
}
