package dev.peregrine.http2;

import dev.peregrine.Server;
import dev.peregrine.examples.PlaintextApp;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.InputStream;
import java.net.Socket;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * With HTTP/2 on, the plain port tells the HTTP/2 preface from HTTP/1.1 by the first bytes: a first
 * line naming no HTTP version at all is a failed preface, closed without an answer (RFC 9113 §3.4,
 * h2spec 3.5/2), but HTTP/1.1's own cases keep HTTP/1.1's answers, as with HTTP/2 off: empty lines
 * before the request line (RFC 9112 §2.2) and a version in lowercase (its 400).
 */
class Http2PrefaceDetectionTest {
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void onlyALineWithoutAnyVersionIsAFailedPreface(String transport) throws Exception {
        try (Server server = PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1).transport(transport)
                .http2(true).start()) {
            try (Socket s = RawClient.connect(server.port())) {
                s.getOutputStream().write(RawClient.bytes("INVALID CONNECTION PREFACE\r\n\r\n"));
                assertEquals(-1, s.getInputStream().read(), "closed without an answer");
            }
            assertEquals(200, answer(server, "\r\n\r\nGET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n"));
            assertEquals(400, answer(server, "\n\nGET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n")); // bare LF lines: HTTP/1.1's 400
            assertEquals(400, answer(server, "GET /plaintext http/1.1\r\nHost: x\r\n\r\n"));
            assertEquals(505, answer(server, "GET /plaintext HTTP/3.0\r\nHost: x\r\n\r\n"));
        }
    }

    private static int answer(Server server, String request) throws Exception {
        try (Socket s = RawClient.connect(server.port())) {
            s.getOutputStream().write(RawClient.bytes(request));
            InputStream in = s.getInputStream();
            return RawResponse.read(in).status;
        }
    }
}
