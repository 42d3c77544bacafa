package dev.peregrine.tls;

import dev.peregrine.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Development certificates explain themselves: a clear error without Bouncy Castle, a certificate clients can trust. */
class DevCertificateTest {
    /** The child: asks for a self-signed configuration and prints what it got. */
    public static final class SelfSigned {
        public static void main(String[] args) {
            try {
                TlsConfig.selfSigned();
                System.out.println("made");
            } catch (IllegalStateException e) {
                System.out.println("refused: " + e.getMessage());
            }
        }
    }

    @Test
    void withoutBouncyCastleTheErrorNamesTheDependency() throws Exception {
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> !new File(e).getName().startsWith("bc"))
                .collect(Collectors.joining(File.pathSeparator));
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classPath, SelfSigned.class.getName()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertTrue(out.startsWith("refused: ") && out.contains("org.bouncycastle:bcpkix-jdk18on"), out);
    }

    @Test
    void curlTrustsTheSelfSignedCertificateThroughItsPem(@TempDir Path dir) throws Exception {
        TlsConfig tls = TlsConfig.selfSigned();
        Path pem = tls.writeCertificatePem(dir.resolve("dev.pem"));
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).tls(tls)
                .get("/hi", (req, res) -> res.text("hi")).start()) {
            Process curl = new ProcessBuilder("curl", "-sS", "--cacert", pem.toString(),
                    "https://localhost:" + server.port() + "/hi").redirectErrorStream(true).start();
            String out = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(curl.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, curl.exitValue(), out);
            assertEquals("hi", out);
        }
        assertEquals(tls.certificate(), tls.identities().get(0).chain()[0]);
        assertTrue(Files.readString(pem).startsWith("-----BEGIN CERTIFICATE-----\n"));
    }
}
