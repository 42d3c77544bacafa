package dev.peregrine.examples;

import dev.peregrine.Server;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
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
            assertEquals("{\"a\":\"1\",\"b\":\"x y\"}", curl("-s", "-b", "a=1; b=\"x y\"", "-c", jar.toString(), url));
            assertTrue(Files.readString(jar).contains("visited\t1"), Files.readString(jar));
            assertEquals("{\"visited\":\"1\"}", curl("-s", "-b", jar.toString(), url));
        } finally {
            Files.deleteIfExists(jar);
        }
    }

    private static String curl(String... args) throws Exception {
        String[] cmd = new String[args.length + 1];
        cmd[0] = "curl";
        System.arraycopy(args, 0, cmd, 1, args.length);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out;
        try (InputStream in = p.getInputStream()) {
            out = in.readAllBytes();
        }
        assertEquals(0, p.waitFor());
        return new String(out, StandardCharsets.UTF_8);
    }
}
