package dev.peregrine.proxy;

import dev.peregrine.Metrics;
import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hostile peers against the PROXY protocol layer (one loop): headers that stall part way, v2 headers
 * announcing more than they send, and malformed ones. Held to the memory the pool lends, a bystander's
 * latency on the same loop, and the verdict (closed and counted, no request served).
 */
class ProxyHostileTest {
    private static final String REQUEST = "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n";
    /** The v2 signature (PROXY protocol §2.2). */
    private static final byte[] SIGNATURE = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};

    private Server server;
    private final List<RawClient> attackers = new ArrayList<>();

    @AfterEach
    void stop() throws IOException {
        for (RawClient a : attackers) {
            a.close();
        }
        if (server != null) {
            Await.until("every connection closed", () -> server.metrics().open == 0);
            assertEquals(0, server.metrics().lentBuffers, "every pooled buffer back");
            server.close();
        }
    }

    private void start(String transport) {
        server = Server.builder().host("127.0.0.1").port(0).transport(transport).threads(1)
                .proxyProtocol(ProxyProtocol.trusting("127.0.0.1"))
                .get("/plaintext", (req, res) -> res.text(req.remoteAddress().getAddress().getHostAddress()))
                .start();
    }

    private static byte[] bytes(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    /** A bystander behind the proxy: 200 with the header's source address, and the milliseconds it took. */
    private long bystander() throws IOException {
        try (RawClient c = new RawClient(server.port())) {
            long start = System.nanoTime();
            RawResponse r = c.send("PROXY TCP4 192.0.2.7 192.0.2.8 1000 80\r\n" + REQUEST).read();
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertEquals(200, r.status);
            assertEquals("192.0.2.7", new String(r.body, StandardCharsets.US_ASCII));
            return millis;
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void stalledAndOverpromisingHeadersHoldLittleAndStallNobody(String transport) throws IOException {
        start(transport);
        byte[] v2Head = bytes(SIGNATURE, new byte[] {0x21, 0x11, 0x00, 0x0C}); // PROXY, TCP4, 12 address bytes follow
        byte[] big = bytes(SIGNATURE, new byte[] {0x21, 0x11, (byte) 0xFF, (byte) 0xFF}); // announces 65,535 bytes
        List<byte[]> stalls = List.of(
                java.util.Arrays.copyOf(SIGNATURE, 11),            // the signature, cut
                v2Head,                                           // the fixed part, then nothing
                bytes(v2Head, new byte[] {(byte) 192, 0, 2, 1}),  // part of the addresses
                big,                                              // more than any header may be
                "PROXY TCP4 192.0.2.1 192.0".getBytes(StandardCharsets.US_ASCII)); // a v1 line, unfinished
        long accepted = server.metrics().accepted;
        int n = 0;
        for (int round = 0; round < 40; round++) {
            for (byte[] s : stalls) {
                RawClient a = new RawClient(server.port());
                attackers.add(a);
                a.send(s);
                n++;
            }
        }
        int total = n;
        long during = bystander();
        assertTrue(during < 300, "a bystander among " + total + " stalled headers waited " + during + " ms");
        Await.until("every attacker accepted", () -> server.metrics().accepted >= accepted + total + 1);
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            best = Math.min(best, bystander());
        }
        Metrics m = server.metrics();
        assertTrue(best < 300, "bystander took " + best + " ms");
        assertTrue(m.lentBytes <= 16L << 20, m.lentBytes + " bytes lent for " + total + " stalled headers: " + m);
        assertEquals(4, m.requests, "only the bystanders were served");
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void malformedHeadersAreClosedCountedAndServeNothing(String transport) throws IOException {
        start(transport);
        byte[][] bad = {
                REQUEST.getBytes(StandardCharsets.US_ASCII),                                   // no header
                ("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n" + REQUEST).getBytes(StandardCharsets.US_ASCII), // LF without CR
                ("PROXY " + "9".repeat(200) + "\r\n" + REQUEST).getBytes(StandardCharsets.US_ASCII), // longer than v1 allows
                bytes(SIGNATURE, new byte[] {0x21, 0x11, 0x00, 0x02, 1, 2}, REQUEST.getBytes(StandardCharsets.US_ASCII)), // too short for TCP4
        };
        for (byte[] b : bad) {
            try (RawClient c = new RawClient(server.port())) {
                c.send(b);
                assertTrue(c.closedByServer(), new String(b, StandardCharsets.ISO_8859_1));
            }
        }
        Await.until("counted", () -> server.metrics().proxyMalformed == bad.length);
        assertEquals(0, server.metrics().requests);
        assertTrue(bystander() < 5_000);
    }
}
