package dev.peregrine.route;

import dev.peregrine.Server;
import dev.peregrine.TestClient;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every rest a {@code /files/*} route accepts stays under the root it is resolved against: thousands
 * of generated paths (plain, percent-encoded dots and slashes, backslashes, doubled slashes, overlong
 * forms), sent through the real parser, router and connection ({@link TestClient}); each request the
 * router lets through is resolved by the handler as a user would ({@code root.resolve(rest)}) and
 * must stay inside, begin with no {@code /} and hold no empty segment but the last.
 */
class WildcardContainmentTest {
    private static final Path ROOT = Path.of("/srv/www/root");
    private static final String[] PIECES = {
        "a", "b.txt", "etc", "passwd", ".", "..", "...", ".a", "a.", "%2e", "%2E", "%2e%2e", "%2E%2e", ".%2e", "%2e.",
        "%2f", "%2F", "..%2f", "%2f..", "%5c", "%5C", "..%5c", "\\", "..\\..", "%00", "%", "%2", "%zz", "%252e%252e",
        "%c0%ae%c0%ae", "%u002e", "~", "a;b", "%3B", "%20", "+", "", "", "C:", "%2e%2e%2f%2e%2e", "x%2fy",
    };

    @Test
    void everyAcceptedRestStaysUnderTheRoot() {
        Random random = new Random(23);
        List<String> escapes = new ArrayList<>();
        int accepted = 0;
        int refused = 0;
        Server.Builder app = Server.builder().get("/files/*", (req, res) -> {
            String rest = req.pathParam("*");
            Path p = ROOT.resolve(rest).normalize();
            boolean inside = p.startsWith(ROOT) && !rest.startsWith("/") && !hasEmptyInnerSegment(rest);
            res.header("X-Inside", inside ? "yes" : "no").text(rest);
        });
        try (TestClient c = TestClient.of(app)) {
            for (int i = 0; i < 6_000; i++) {
                StringBuilder rest = new StringBuilder();
                int n = 1 + random.nextInt(5);
                for (int s = 0; s < n; s++) {
                    if (s > 0) {
                        rest.append(random.nextInt(8) == 0 ? "//" : "/");
                    }
                    rest.append(PIECES[random.nextInt(PIECES.length)]);
                }
                if (random.nextInt(6) == 0) {
                    rest.insert(0, '/');
                }
                if (random.nextInt(6) == 0) {
                    rest.append('/');
                }
                String path = "/files/" + rest;
                TestClient.Response r = c.get(path);
                if (r.status() == 200) {
                    accepted++;
                    if (!"yes".equals(r.header("X-Inside"))) {
                        escapes.add(path + " -> rest " + r.text());
                    }
                } else {
                    assertEquals(400, r.status(), path);
                    refused++;
                }
            }
        }
        assertTrue(escapes.isEmpty(), escapes.size() + " rests left the root:\n" + String.join("\n", escapes.subList(0, Math.min(20, escapes.size()))));
        assertTrue(accepted > 500 && refused > 500, "both kinds generated: " + accepted + " accepted, " + refused + " refused");
    }

    @Test
    void anAbsoluteOrEmptySegmentRestIs400() {
        try (TestClient c = TestClient.of(Server.builder().get("/files/*", (req, res) -> res.text(req.pathParam("*"))))) {
            assertEquals(400, c.get("/files//etc/passwd").status());
            assertEquals(400, c.get("/files/a//b").status());
            assertEquals(400, c.get("/files///").status());
            assertEquals(400, c.get("/files/%2Fetc/passwd").status());
            assertEquals("", c.get("/files/").text(), "an empty rest: the root itself");
            assertEquals("dir/", c.get("/files/dir/").text(), "a trailing slash names a directory");
            assertEquals("a/b.txt", c.get("/files/a/b.txt").text());
        }
    }

    private static boolean hasEmptyInnerSegment(String rest) {
        String[] segments = rest.split("/", -1);
        for (int i = 0; i < segments.length - 1; i++) {
            if (segments[i].isEmpty() && rest.length() > 0) {
                return true;
            }
        }
        return false;
    }
}
