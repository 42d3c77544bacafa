package dev.peregrine.proxy;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every valid header at every split point gives the same header as whole, and null before it is
 * complete; every malformed one fails whole and never yields a header when split. The request that
 * follows a header is never consumed.
 */
class ProxyHeaderDecoderTest {
    private static final byte[] SIG = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
    private static final byte[] REQUEST = "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private final ProxyHeaderDecoder decoder = new ProxyHeaderDecoder();

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A v2 header: version/command byte, family/transport byte, then the body (addresses + TLVs). */
    private static byte[] v2(int verCmd, int famProto, byte[] body) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(SIG);
        b.write(verCmd);
        b.write(famProto);
        b.write(body.length >> 8);
        b.write(body.length & 0xFF);
        b.writeBytes(body);
        return b.toByteArray();
    }

    private static byte[] bytes(int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = (byte) v[i];
        }
        return b;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }

    /** Placed at an offset in a larger direct buffer, as a connection's input would be. */
    private ProxyHeader decode(byte[] input, int length) throws ProxyProtocolException {
        ByteBuffer buf = ByteBuffer.allocateDirect(input.length + 10);
        buf.position(3);
        buf.put(input);
        return decoder.decode(buf, 3, 3 + length);
    }

    private ProxyHeader decodeAtEverySplit(byte[] header) throws ProxyProtocolException {
        byte[] input = concat(header, REQUEST);
        ProxyHeader whole = decode(input, input.length);
        assertNotNull(whole);
        assertEquals(header.length, whole.length(), "consumes the header only");
        for (int k = 0; k < input.length; k++) {
            ProxyHeader part = decode(input, k);
            if (k < header.length) {
                assertNull(part, "null before the header is complete, at " + k);
            } else {
                assertEquals(whole, part, "same header at split " + k);
            }
        }
        return whole;
    }

    private void assertMalformed(byte[] input) {
        assertThrows(ProxyProtocolException.class, () -> decode(input, input.length), () -> printable(input));
        for (int k = 0; k <= input.length; k++) {
            try {
                ProxyHeader h = decode(input, k);
                assertNull(h, "a header from malformed input at split " + k + ": " + printable(input));
            } catch (ProxyProtocolException expected) {
                // failing early is right
            }
        }
    }

    private static String printable(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(x >= 0x20 && x < 0x7F ? String.valueOf((char) x) : String.format("\\x%02x", x & 0xFF));
        }
        return s.toString();
    }

    @Test
    void v1Tcp4() throws Exception {
        ProxyHeader h = decodeAtEverySplit(ascii("PROXY TCP4 192.168.0.1 10.0.0.2 56324 443\r\n"));
        assertEquals(1, h.version());
        assertFalse(h.local());
        assertEquals(new InetSocketAddress("192.168.0.1", 56324), h.source());
        assertEquals(new InetSocketAddress("10.0.0.2", 443), h.destination());
    }

    @Test
    void v1Tcp6() throws Exception {
        ProxyHeader h = decodeAtEverySplit(ascii("PROXY TCP6 2001:db8::1 ::1 65535 0\r\n"));
        assertEquals(new InetSocketAddress("2001:db8::1", 65535), h.source());
        assertEquals(new InetSocketAddress("::1", 0), h.destination());
    }

    @Test
    void v1LongestTcp6() throws Exception {
        String max = "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff";
        byte[] header = ascii("PROXY TCP6 " + max + " " + max + " 65535 65535\r\n");
        assertEquals(104, header.length);
        assertEquals(104, decodeAtEverySplit(header).length());
    }

    @Test
    void v1Unknown() throws Exception {
        ProxyHeader h = decodeAtEverySplit(ascii("PROXY UNKNOWN\r\n"));
        assertTrue(h.local());
        assertNull(h.source());
        // Anything after UNKNOWN up to the CRLF is ignored (section 2.1), up to 107 bytes in all.
        String pad = "PROXY UNKNOWN " + "x".repeat(107 - 16) + "\r\n";
        assertEquals(107, pad.length());
        assertTrue(decodeAtEverySplit(ascii(pad)).local());
        assertMalformed(ascii("PROXY UNKNOWN " + "x".repeat(107 - 15) + "\r\n"));
    }

    @Test
    void v1LengthLimit() throws Exception {
        byte[] noCrlf = ascii("PROXY UNKNOWN " + "x".repeat(93));
        assertEquals(107, noCrlf.length);
        assertThrows(ProxyProtocolException.class, () -> decode(noCrlf, noCrlf.length));
        assertNull(decode(noCrlf, 106), "106 bytes without CRLF may still become a header");
    }

    @Test
    void v1Malformed() {
        List<String> bad = List.of(
                "GET / HTTP/1.1\r\n\r\n",
                "PROXZ TCP4 1.2.3.4 5.6.7.8 1 2\r\n",
                "proxy TCP4 1.2.3.4 5.6.7.8 1 2\r\n",
                "PROXY  TCP4 1.2.3.4 5.6.7.8 1 2\r\n",
                "PROXY TCP5 1.2.3.4 5.6.7.8 1 2\r\n",
                "PROXY UDP4 1.2.3.4 5.6.7.8 1 2\r\n",
                "PROXY TCP4\r\n",
                "PROXY UNKNOWNX\r\n",
                "PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n",
                "PROXY TCP4 1.2.3.4 5.6.7.8 1 2 3\r\n",
                "PROXY TCP4 1.2.3.4  5.6.7.8 1 2\r\n",
                "PROXY TCP4 1.2.3.4 5.6.7.8 1 2 \r\n",
                "PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n",
                "PROXY TCP4 1.2.3.4 5.6.7.8 1 2\rX\n",
                "PROXY TCP4 1.2.3 5.6.7.8 1 2\r\n",
                "PROXY TCP4 1.2.3.256 5.6.7.8 1 2\r\n",
                "PROXY TCP4 01.2.3.4 5.6.7.8 1 2\r\n",
                "PROXY TCP4 1.2.3.4 5.6.7.8 65536 2\r\n",
                "PROXY TCP4 1.2.3.4 5.6.7.8 080 2\r\n",
                "PROXY TCP4 1.2.3.4 5.6.7.8 -1 2\r\n",
                "PROXY TCP4 example.com 5.6.7.8 1 2\r\n",
                "PROXY TCP4 ::1 5.6.7.8 1 2\r\n",
                "PROXY TCP6 1.2.3.4 ::1 1 2\r\n",
                "PROXY TCP6 ::1%eth0 ::1 1 2\r\n",
                "PROXY TCP6 :::1::2 ::1 1 2\r\n",
                "PROXY TCP6 localhost ::1 1 2\r\n",
                "PROXY TCP4 1.2.3.4 5.6.7.\u00e98 1 2\r\n",
                "PROXY TCP4 1.2.3.4\t5.6.7.8 1 2\r\n");
        for (String s : bad) {
            assertMalformed(ascii(s));
        }
    }

    private static final byte[] INET_ADDRS = bytes(192, 168, 0, 1, 10, 0, 0, 2, 0xDC, 0x04, 0x01, 0xBB);

    @Test
    void v2ProxyInet() throws Exception {
        ProxyHeader h = decodeAtEverySplit(v2(0x21, 0x11, INET_ADDRS));
        assertEquals(2, h.version());
        assertEquals(28, h.length());
        assertEquals(new InetSocketAddress("192.168.0.1", 56324), h.source());
        assertEquals(new InetSocketAddress("10.0.0.2", 443), h.destination());
    }

    @Test
    void v2ProxyInet6WithTlvsSkipped() throws Exception {
        byte[] addrs = new byte[36];
        addrs[0] = 0x20;
        addrs[1] = 0x01;
        addrs[2] = 0x0d;
        addrs[3] = (byte) 0xb8;
        addrs[15] = 1;
        addrs[31] = 1;
        addrs[32] = 0x30;
        addrs[33] = 0x39;
        addrs[34] = 0x00;
        addrs[35] = 0x50;
        byte[] tlvs = concat(bytes(0x01, 0x00, 0x02), ascii("h2"),          // ALPN
                bytes(0x04, 0x00, 0x00),                                       // NOOP, empty
                bytes(0xE0, 0x00, 0x05), ascii("hello"));                      // custom
        ProxyHeader h = decodeAtEverySplit(v2(0x21, 0x21, concat(addrs, tlvs)));
        assertEquals(16 + 36 + tlvs.length, h.length());
        assertEquals(new InetSocketAddress("2001:db8::1", 12345), h.source());
        assertEquals(new InetSocketAddress("::1", 80), h.destination());
    }

    @Test
    void v2LocalUnspecAndUnixUseTheConnectionsAddresses() throws Exception {
        assertTrue(decodeAtEverySplit(v2(0x20, 0x00, new byte[0])).local(), "LOCAL, health check");
        assertTrue(decodeAtEverySplit(v2(0x20, 0x11, INET_ADDRS)).local(), "LOCAL with addresses: ignored");
        assertTrue(decodeAtEverySplit(v2(0x21, 0x00, new byte[0])).local(), "PROXY UNSPEC");
        assertTrue(decodeAtEverySplit(v2(0x21, 0x31, new byte[216])).local(), "PROXY UNIX");
    }

    @Test
    void v2Malformed() {
        assertMalformed(v2(0x11, 0x11, INET_ADDRS));                          // version 1 in binary
        assertMalformed(v2(0x31, 0x11, INET_ADDRS));                          // version 3
        assertMalformed(v2(0x22, 0x11, INET_ADDRS));                          // command 2
        assertMalformed(v2(0x21, 0x41, INET_ADDRS));                          // family 4
        assertMalformed(v2(0x21, 0x13, INET_ADDRS));                          // transport 3
        assertMalformed(v2(0x21, 0x12, INET_ADDRS));                          // PROXY over DGRAM
        assertMalformed(v2(0x21, 0x11, new byte[11]));                        // INET, too short
        assertMalformed(v2(0x21, 0x21, new byte[35]));                        // INET6, too short
        assertMalformed(v2(0x21, 0x31, new byte[215]));                       // UNIX, too short
        assertMalformed(v2(0x21, 0x11, concat(INET_ADDRS, bytes(0x01, 0x00))));            // TLV head cut
        assertMalformed(v2(0x21, 0x11, concat(INET_ADDRS, bytes(0x01, 0x00, 0x05, 'a')))); // TLV runs past
        byte[] badSig = v2(0x21, 0x11, INET_ADDRS);
        badSig[11] = 0x0B;
        assertMalformed(badSig);
    }

    @Test
    void v2LengthLimit() throws Exception {
        byte[] big = v2(0x21, 0x11, concat(INET_ADDRS, bytes(0xE0, 0x01, 0xF0), new byte[0x1F0]));
        assertEquals(16 + 12 + 3 + 496, big.length);
        // Refused as soon as the length field is here, not after reading the whole header.
        assertThrows(ProxyProtocolException.class, () -> decode(big, 16));
        assertNotNull(new ProxyHeaderDecoder(1024).decode(ByteBuffer.wrap(big), 0, big.length));
        assertThrows(IllegalArgumentException.class, () -> new ProxyHeaderDecoder(231));
        assertThrows(IllegalArgumentException.class, () -> new ProxyHeaderDecoder(65552));
    }

    @Test
    void emptyInputNeedsMore() throws Exception {
        assertNull(decoder.decode(ByteBuffer.allocate(0), 0, 0));
    }

    @Test
    void everySingleByteMutationOfAValidHeaderIsDecidedWithoutCrash() throws Exception {
        byte[][] valid = {ascii("PROXY TCP4 192.168.0.1 10.0.0.2 56324 443\r\n"), v2(0x21, 0x11, INET_ADDRS)};
        for (byte[] header : valid) {
            for (int i = 0; i < header.length; i++) {
                for (int v = 0; v < 256; v++) {
                    byte[] m = header.clone();
                    m[i] = (byte) v;
                    byte[] input = concat(m, REQUEST);
                    try {
                        ProxyHeader h = decode(input, input.length);
                        if (h != null) {
                            assertTrue(h.length() > 0 && h.length() <= input.length);
                        }
                    } catch (ProxyProtocolException expected) {
                        // rejected: fine
                    } catch (RuntimeException e) {
                        fail("crash on mutation at " + i + " to " + v + ": " + e);
                    }
                }
            }
        }
    }
}
