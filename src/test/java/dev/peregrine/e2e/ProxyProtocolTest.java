package dev.peregrine.e2e;

import dev.peregrine.Server;
import dev.peregrine.proxy.ProxyProtocol;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The PROXY protocol (HAProxy's spec, v1 and v2) on a listener, over real sockets on every transport:
 * the header's client becomes {@code req.remoteAddress()}, LOCAL/UNKNOWN keep the socket's peer, every
 * split of the header gives the same answer, and untrusted peers, malformed, oversize and missing
 * headers are closed without an answer and counted. TLS under PROXY is in {@code tls.ProxyProtocolTlsTest}.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class ProxyProtocolTest extends ServerTestBase {
    static final String REQUEST = "GET /client HTTP/1.1\r\nHost: x\r\n\r\n";

    ProxyProtocolTest(ServerFactory factory) {
        super(factory);
    }

    @Override
    @BeforeEach
    void startServer() {
        server = start("127.0.0.1", "::1");
    }

    private Server start(String... trusted) {
        return factory.start(b -> b.proxyProtocol(ProxyProtocol.trusting(trusted)).idleTimeout(Duration.ofMillis(300))
                .get("/client", (req, res) -> res.text(req.remoteAddress().getAddress().getHostAddress() + " "
                        + req.remoteAddress().getPort())));
    }

    /** A v2 header (section 2.2): PROXY over TCP/IPv4 or IPv6, or LOCAL, with {@code tlvs} appended. */
    static byte[] v2(boolean local, String src, int srcPort, String dst, int dstPort, byte[] tlvs) throws IOException {
        byte[] s = InetAddress.getByName(src).getAddress();
        byte[] d = InetAddress.getByName(dst).getAddress();
        int family = s.length == 4 ? 0x11 : 0x21; // INET/INET6 + STREAM
        int len = 2 * s.length + 4 + tlvs.length;
        ByteBuffer b = ByteBuffer.allocate(16 + len);
        b.put(new byte[]{0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A});
        b.put((byte) (local ? 0x20 : 0x21)).put((byte) family).putShort((short) len);
        b.put(s).put(d).putShort((short) srcPort).putShort((short) dstPort).put(tlvs);
        return b.array();
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = new byte[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Writes {@code bytes} in pieces cut at {@code splits} and returns the one response's body. */
    private String ask(byte[] bytes, int... splits) throws IOException {
        try (Socket s = connect()) {
            int from = 0;
            for (int at : splits) {
                s.getOutputStream().write(bytes, from, at - from);
                s.getOutputStream().flush();
                from = at;
            }
            s.getOutputStream().write(bytes, from, bytes.length - from);
            RawResponse r = RawResponse.read(s.getInputStream());
            assertEquals(200, r.status, r.statusLine);
            return r.text();
        }
    }

    @Test
    void v1Tcp4GivesTheClientsAddress() throws IOException {
        assertEquals("203.0.113.7 4242", ask(ascii("PROXY TCP4 203.0.113.7 10.0.0.1 4242 443\r\n" + REQUEST)));
    }

    @Test
    void v1Tcp6GivesTheClientsAddress() throws IOException {
        assertEquals("2001:db8:0:0:0:0:0:7 65535",
                ask(ascii("PROXY TCP6 2001:db8::7 2001:db8::1 65535 80\r\n" + REQUEST)));
    }

    @Test
    void v1UnknownKeepsTheSocketsPeer() throws IOException {
        assertTrue(ask(ascii("PROXY UNKNOWN\r\n" + REQUEST)).startsWith("127.0.0.1 "));
    }

    @Test
    void v2Ipv4AndIpv6() throws IOException {
        assertEquals("198.51.100.9 1234", ask(concat(v2(false, "198.51.100.9", 1234, "10.0.0.2", 80, new byte[0]), ascii(REQUEST))));
        assertEquals("2001:db8:0:0:0:0:0:99 8080", ask(concat(v2(false, "2001:db8::99", 8080, "2001:db8::1", 443, new byte[0]),
                ascii(REQUEST))));
    }

    @Test
    void v2LocalKeepsTheSocketsPeer() throws IOException {
        assertTrue(ask(concat(v2(true, "0.0.0.0", 0, "0.0.0.0", 0, new byte[0]), ascii(REQUEST))).startsWith("127.0.0.1 "));
    }

    @Test
    void v2TlvsAreSkipped() throws IOException {
        // PP2_TYPE_ALPN "h2", PP2_TYPE_AUTHORITY "example.com", PP2_TYPE_NOOP of 5 bytes
        byte[] tlvs = concat(concat(new byte[]{0x01, 0, 2, 'h', '2'}, concat(new byte[]{0x02, 0, 11}, ascii("example.com"))),
                new byte[]{0x04, 0, 5, 0, 0, 0, 0, 0});
        assertEquals("192.0.2.1 5555", ask(concat(v2(false, "192.0.2.1", 5555, "192.0.2.2", 80, tlvs), ascii(REQUEST))));
    }

    @Test
    void everySplitOfTheHeaderGivesTheSameAnswer() throws IOException {
        byte[] tlv = {0x04, 0, 3, 1, 2, 3};
        List<byte[]> headers = List.of(ascii("PROXY TCP4 203.0.113.7 10.0.0.1 4242 443\r\n"),
                v2(false, "2001:db8::5", 7, "2001:db8::1", 443, tlv));
        List<String> expected = List.of("203.0.113.7 4242", "2001:db8:0:0:0:0:0:5 7");
        for (int h = 0; h < headers.size(); h++) {
            byte[] all = concat(headers.get(h), ascii(REQUEST));
            int headerLength = headers.get(h).length;
            for (int split = 1; split <= headerLength + 1; split++) {
                assertEquals(expected.get(h), ask(all, split), "split at " + split);
            }
            // one byte at a time through the header
            int[] bytewise = new int[headerLength];
            for (int i = 0; i < headerLength; i++) {
                bytewise[i] = i + 1;
            }
            assertEquals(expected.get(h), ask(all, bytewise));
        }
    }

    @Test
    void theClientStaysForEveryRequestOnTheConnection() throws IOException {
        try (Socket s = connect()) {
            s.getOutputStream().write(ascii("PROXY TCP4 203.0.113.8 10.0.0.1 1000 80\r\n" + REQUEST + REQUEST));
            assertEquals("203.0.113.8 1000", RawResponse.read(s.getInputStream()).text());
            assertEquals("203.0.113.8 1000", RawResponse.read(s.getInputStream()).text());
            s.getOutputStream().write(ascii(REQUEST));
            assertEquals("203.0.113.8 1000", RawResponse.read(s.getInputStream()).text());
        }
    }

    @Test
    void curlSendsV1() throws Exception {
        Process p = new ProcessBuilder("curl", "-sS", "--haproxy-protocol", "http://127.0.0.1:" + server.port() + "/client")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        assertTrue(out.startsWith("127.0.0.1 "), out); // curl sends the connection's own addresses
    }

    @Test
    void untrustedPeerIsClosedWithoutAnAnswer() throws IOException {
        Server only10 = start("10.0.0.0/8", "fd00::/8");
        try (Socket s = RawClient.connect(only10.port())) {
            s.getOutputStream().write(ascii("PROXY TCP4 203.0.113.7 10.0.0.1 4242 443\r\n" + REQUEST));
            assertEquals("", readUntilClosed(s));
            Await.until(() -> only10.metrics().proxyUntrusted == 1, only10.metrics()::toString);
            assertEquals(0, only10.metrics().requests);
        } finally {
            awaitNoLentBuffers(only10);
            only10.close();
        }
    }

    @Test
    void untrustedPeerThatSendsNothingIsClosedAtOnce() throws IOException {
        Server only10 = start("10.0.0.0/8");
        try (Socket s = RawClient.connect(only10.port())) {
            assertEquals("", readUntilClosed(s));
        } finally {
            only10.close();
        }
    }

    @Test
    void malformedHeadersAreClosedAndCounted() throws IOException {
        List<byte[]> bad = new ArrayList<>();
        bad.add(ascii(REQUEST)); // no header at all
        bad.add(ascii("PROXY TCP5 1.2.3.4 5.6.7.8 1 2\r\n" + REQUEST));
        bad.add(ascii("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n" + REQUEST)); // LF without CR
        bad.add(ascii("PROXY TCP4 1.2.3.4  5.6.7.8 1 2\r\n" + REQUEST)); // double space
        bad.add(ascii("PROXY TCP4 1.2.3.400 5.6.7.8 1 2\r\n" + REQUEST));
        bad.add(ascii("PROXY TCP4 1.2.3.4 5.6.7.8 1 65536\r\n" + REQUEST));
        bad.add(ascii("PROXY TCP4 example.com 5.6.7.8 1 2\r\n" + REQUEST)); // never resolved
        byte[] v2 = v2(false, "192.0.2.1", 1, "192.0.2.2", 2, new byte[0]);
        byte[] version1 = v2.clone();
        version1[12] = 0x11;
        bad.add(concat(version1, ascii(REQUEST)));
        byte[] command3 = v2.clone();
        command3[12] = 0x23;
        bad.add(concat(command3, ascii(REQUEST)));
        byte[] dgram = v2.clone();
        dgram[13] = 0x12;
        bad.add(concat(dgram, ascii(REQUEST)));
        bad.add(concat(v2(false, "192.0.2.1", 1, "192.0.2.2", 2, new byte[]{0x04, 0, 9, 1}), ascii(REQUEST))); // TLV past the end
        for (int i = 0; i < bad.size(); i++) {
            try (Socket s = connect()) {
                s.getOutputStream().write(bad.get(i));
                assertEquals("", readUntilClosed(s), "case " + i);
            }
        }
        int cases = bad.size();
        Await.until(() -> server.metrics().proxyMalformed == cases, server.metrics()::toString);
        assertEquals(0, server.metrics().requests);
    }

    @Test
    void oversizeHeadersAreClosed() throws IOException {
        byte[] bigTlv = new byte[600];
        bigTlv[0] = 0x04;
        bigTlv[1] = (byte) ((600 - 3) >> 8);
        bigTlv[2] = (byte) (600 - 3);
        byte[] v2 = v2(false, "192.0.2.1", 1, "192.0.2.2", 2, bigTlv);
        try (Socket s = connect()) {
            s.getOutputStream().write(v2, 0, 16); // the fixed part announces 612 bytes: refused before they come
            assertEquals("", readUntilClosed(s));
        }
        try (Socket s = connect()) {
            s.getOutputStream().write(ascii("PROXY TCP6 " + "1:".repeat(60) + "\r\n"));
            assertEquals("", readUntilClosed(s));
        }
        Await.until(() -> server.metrics().proxyMalformed == 2, server.metrics()::toString);
    }

    @Test
    void aPeerThatStopsInsideTheHeaderMeetsTheIdleTimeout() throws IOException {
        try (Socket s = connect()) {
            s.getOutputStream().write(ascii("PROXY TCP4 203.0.113.7 10.0"));
            assertEquals("", readUntilClosed(s)); // idleTimeout is 300 ms here
        }
        Await.until(() -> server.metrics().idleTimeouts == 1, server.metrics()::toString);
    }

    @Test
    void aPeerThatClosesInsideTheHeaderIsForgotten() throws IOException {
        try (Socket s = connect()) {
            s.getOutputStream().write(ascii("PROXY TCP4 203.0"));
            s.shutdownOutput();
            assertEquals("", readUntilClosed(s));
        }
        Await.until(() -> server.metrics().open == 0, server.metrics()::toString);
    }

    /** Everything the server sends until it closes (EOF or reset), as text. */
    static String readUntilClosed(Socket s) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        InputStream in = s.getInputStream();
        byte[] buf = new byte[4096];
        try {
            for (int n; (n = in.read(buf)) >= 0; ) {
                got.write(buf, 0, n);
            }
        } catch (SocketException reset) {
            // closed with unread input: the kernel resets; what came before still counts
        }
        return got.toString(StandardCharsets.ISO_8859_1);
    }
}
