package dev.peregrine.examples;

import dev.peregrine.Server;
import dev.peregrine.testing.Curl;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The examples app as its command line builds it ({@link PlaintextApp#app}): text answers are
 * gzip-compressed when curl asks ({@code --compressed}), and the TechEmpower answers, under the
 * minimum size, are left as they are, without Vary.
 */
class CompressionRouteTest {
    @Test
    void textIsGzippedWhenTheClientAsksAndPlaintextStaysAsItIs() throws Exception {
        Path body = Files.createTempFile("text", ".txt");
        String text = "Peregrine compresses text when the client asks. ".repeat(100);
        Files.writeString(body, text);
        try (Server server = PlaintextApp.app(new String[] {"--port", "0", "--threads", "1"}).start()) {
            String base = "http://127.0.0.1:" + server.port();

            String echo = Curl.run("-s", "-D", "-", "-H", "Accept-Encoding: gzip", "-H", "Content-Type: text/plain",
                    "--data-binary", "@" + body, "-o", "/dev/null", base + "/echo");
            assertTrue(echo.toLowerCase().contains("content-encoding: gzip"), echo);
            assertTrue(echo.toLowerCase().contains("vary: accept-encoding"), echo);
            assertEquals(text, Curl.run("-s", "--compressed", "-H", "Content-Type: text/plain", "--data-binary", "@" + body,
                    base + "/echo"), "curl decodes what it asked for");

            String plaintext = Curl.run("-s", "-D", "-", "-H", "Accept-Encoding: gzip", base + "/plaintext");
            assertTrue(plaintext.endsWith("Hello, World!"), plaintext);
            assertFalse(plaintext.toLowerCase().contains("content-encoding"), plaintext);
            assertFalse(plaintext.toLowerCase().contains("vary"), "13 bytes are never compressed: " + plaintext);
        } finally {
            Files.deleteIfExists(body);
        }
    }
}
