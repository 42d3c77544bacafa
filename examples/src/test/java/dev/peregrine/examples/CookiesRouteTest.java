package dev.peregrine.examples;

import dev.peregrine.Server;
import dev.peregrine.testing.Curl;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code GET /cookies} with curl's cookie jar: the cookies come back as JSON, {@code visited=1} is set. */
class CookiesRouteTest {
    @Test
    void curlCookieJarRoundTrip() throws Exception {
        Path jar = Files.createTempFile("jar", ".txt");
        try (Server server = PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1).start()) {
            String url = "http://127.0.0.1:" + server.port() + "/cookies";
            assertEquals("{\"a\":\"1\",\"b\":\"x y\"}", Curl.run("-s", "-b", "a=1; b=\"x y\"", "-c", jar.toString(), url));
            assertTrue(Files.readString(jar).contains("visited\t1"), Files.readString(jar));
            assertEquals("{\"visited\":\"1\"}", Curl.run("-s", "-b", jar.toString(), url));
        } finally {
            Files.deleteIfExists(jar);
        }
    }
}
