package dev.peregrine.e2e;

import dev.peregrine.Server;
import dev.peregrine.server.ProtocolSwitches;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A live connection handed from HTTP/1.1 to another protocol ({@link EchoProtocol}) with its unread
 * bytes: by {@code Upgrade} (RFC 9110 §7.8) and by the HTTP/2 prior-knowledge preface (RFC 9113
 * §3.4). ALPN's choice is in {@code tls.AlpnSwitchTest}.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class ProtocolSwitchTest extends ServerTestBase {
    private static final String UPGRADE = "GET /chat HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive, Upgrade\r\n"
            + "Upgrade: x-other, x-echo\r\n\r\n";
    private static final String SWITCHED = "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: x-echo\r\n\r\n";
    private static final String PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

    ProtocolSwitchTest(ServerFactory factory) {
        super(factory);
    }

    @Override
    @org.junit.jupiter.api.BeforeEach
    void startServer() {
        server = factory.start(b -> ProtocolSwitches.upgrade(ProtocolSwitches.priorKnowledge(
                ProtocolSwitches.upgrade(b, "x-echo", EchoProtocol::new), EchoProtocol::new), "x-throw", ThrowingProtocol::new));
    }

    @Test
    void upgradeHandsOverTheBytesThatCameWithTheRequest() throws IOException {
        try (Socket s = connect()) {
            send(s, UPGRADE + "hello");
            assertEquals(SWITCHED + "hello", readExactly(s, SWITCHED.length() + 5));
            send(s, "and more");
            assertEquals("and more", readExactly(s, 8));
        }
    }

    @Test
    void upgradeAfterPipelinedRequestsAtEverySplitOfTheRequest() throws IOException {
        String before = "GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n";
        String all = before + UPGRADE + "echo me";
        for (int split = 1; split < all.length(); split += 7) {
            try (Socket s = connect()) {
                send(s, all.substring(0, split));
                send(s, all.substring(split));
                RawResponse first = RawResponse.read(s.getInputStream());
                assertEquals(200, first.status);
                assertEquals("Hello, World!", first.text());
                assertEquals(SWITCHED + "echo me", readExactly(s, SWITCHED.length() + 7), "split at " + split);
            }
        }
    }

    @Test
    void upgradeWithoutTheConnectionOptionOrForAnUnknownProtocolStaysHttp() throws IOException {
        try (Socket s = connect()) {
            send(s, "GET /plaintext HTTP/1.1\r\nHost: localhost\r\nUpgrade: x-echo\r\n\r\n"
                    + "GET /plaintext HTTP/1.1\r\nHost: localhost\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n");
            assertEquals(200, RawResponse.read(s.getInputStream()).status);
            assertEquals(200, RawResponse.read(s.getInputStream()).status);
        }
    }

    /**
     * The {@code upgrade} option in any case and spacing, or on a second {@code Connection} line (one
     * list, RFC 9110 §5.3), still switches; a keep-alive request before it on the same connection does not.
     */
    @Test
    void theUpgradeOptionInAnyCaseSpacingOrLine() throws IOException {
        String[] connections = {
            "Connection: keep-alive,\tUpGrAdE \r\n",
            "connection:UPGRADE\r\n",
            "Connection: keep-alive\r\nConnection:  upgrade , x-other\r\n",
        };
        for (String connection : connections) {
            try (Socket s = connect()) {
                send(s, "GET /plaintext HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\nUpgrade: x-echo\r\n\r\n"
                        + "GET /chat HTTP/1.1\r\nHost: localhost\r\n" + connection + "Upgrade: x-echo\r\n\r\nping");
                RawResponse first = RawResponse.read(s.getInputStream());
                assertEquals(200, first.status, connection);
                assertEquals(SWITCHED + "ping", readExactly(s, SWITCHED.length() + 4), connection);
            }
        }
    }

    @Test
    void preface() throws IOException {
        for (int split = 1; split <= PREFACE.length(); split++) {
            try (Socket s = connect()) {
                send(s, PREFACE.substring(0, split));
                send(s, PREFACE.substring(split) + "frames");
                assertEquals(PREFACE + "frames", readExactly(s, PREFACE.length() + 6), "split at " + split);
            }
        }
    }

    @Test
    void theSwitchedProtocolClosesWhenThePeerDoes() throws IOException {
        try (Socket s = connect()) {
            send(s, UPGRADE + "bye");
            assertEquals(SWITCHED + "bye", readExactly(s, SWITCHED.length() + 3));
            s.shutdownOutput();
            assertEquals(-1, s.getInputStream().read());
        }
    }

    @Test
    void withoutPriorKnowledgeThePrefaceIsAnHttpVersionError() throws IOException {
        try (Server plain = factory.start(b -> b.http2(false))) { // nothing registered for the preface
            try (Socket s = RawClient.connect(plain.port())) {
                send(s, PREFACE);
                RawResponse r = RawResponse.read(s.getInputStream());
                assertEquals(505, r.status);
            }
            awaitNoLentBuffers(plain);
        }
    }

    /** A protocol with a bug: it throws on its first input. */
    static final class ThrowingProtocol implements dev.peregrine.loop.Protocol {
        @Override
        public int onInput(dev.peregrine.loop.Connection c, java.nio.ByteBuffer buf, int start, int end) {
            throw new IllegalStateException("a bug in a protocol");
        }

        @Override
        public void onInputOverflow(dev.peregrine.loop.Connection c) {
        }

        @Override
        public void onEndOfInput(dev.peregrine.loop.Connection c) {
            c.close();
        }

        @Override
        public int timerPhase() {
            return 0;
        }

        @Override
        public long timeoutMillis(int phase) {
            return 0;
        }

        @Override
        public void onTimeout(dev.peregrine.loop.Connection c, int phase) {
        }

        @Override
        public void onShutdown(dev.peregrine.loop.Connection c) {
            c.close();
        }

        @Override
        public void onClosed(dev.peregrine.loop.Connection c) {
        }
    }

    @Test
    void aProtocolThatThrowsClosesOnlyItsOwnConnection() throws IOException {
        try (Socket other = connect(); Socket s = connect()) {
            send(other, "GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n");
            assertEquals(200, RawResponse.read(other.getInputStream()).status);
            send(s, UPGRADE.replace("x-other, x-echo", "x-throw") + "boom");
            // The batch the failing call was part of (the 101) is discarded with the connection: what
            // a protocol left half-written must never reach this peer, nor another connection's.
            byte[] rest = s.getInputStream().readAllBytes(); // returns at the server's close
            assertEquals("", new String(rest, StandardCharsets.ISO_8859_1));
            send(other, "GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n");
            assertEquals(200, RawResponse.read(other.getInputStream()).status, "the other connection goes on");
        }
    }

    private static void send(Socket s, String text) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    private static String readExactly(Socket s, int n) throws IOException {
        InputStream in = s.getInputStream();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        while (got.size() < n) {
            int b = in.read();
            assertTrue(b >= 0, () -> "connection ended after " + got.toString(StandardCharsets.ISO_8859_1));
            got.write(b);
        }
        return got.toString(StandardCharsets.ISO_8859_1);
    }
}
