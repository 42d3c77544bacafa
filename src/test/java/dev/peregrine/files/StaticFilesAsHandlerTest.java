package dev.peregrine.files;

import dev.peregrine.StaticOptions;

import dev.peregrine.Request;
import dev.peregrine.Server;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link StaticFiles} is a public {@code Handler}: an application may call it with a request of its
 * own, whose {@code *} parameter the router never checked. Its own checks must then hold alone: dot
 * segments, absolute paths, backslashes and NUL are 404 even where they would stay inside the root
 * ({@code sub/../a.txt}) or where links out are allowed ({@code ../secret.txt}), with and without the
 * open-file cache. Hidden names are allowed here, so the {@code ..} check stands alone (the hidden-name
 * rule would otherwise also refuse a segment starting with a dot).
 */
class StaticFilesAsHandlerTest {
    @TempDir
    Path dir;
    private Server server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** {@code req} but for its {@code *} parameter, which is {@code rest}: a request of the application's own. */
    private static Request withRest(Request req, String rest) {
        return (Request) Proxy.newProxyInstance(Request.class.getClassLoader(), new Class<?>[] {Request.class}, (p, m, args) -> {
            if (m.getName().equals("pathParam") && "*".equals(args[0])) {
                return rest;
            }
            try {
                return m.invoke(req, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    private int status(String rest) throws IOException {
        try (RawClient c = new RawClient(server.port())) {
            RawResponse r = c.send("GET /own?p=" + URLEncoder.encode(rest, StandardCharsets.UTF_8) + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
            return r.status;
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void itsOwnChecksHoldWithoutTheRouters(String transport) throws IOException {
        Path root = Files.createDirectories(dir.resolve("public"));
        Files.writeString(root.resolve("a.txt"), "a");
        Files.createDirectories(root.resolve("sub"));
        Files.writeString(root.resolve("sub/index.html"), "<p>sub</p>");
        Files.writeString(dir.resolve("secret.txt"), "secret");
        for (int cache : new int[] {16, 0}) {
            StaticFiles files = new StaticFiles(root, StaticOptions.builder().followSymlinksOut(true).allowHidden(true).openFileCache(cache).build());
            server = Server.builder().host("127.0.0.1").port(0).transport(transport).threads(1)
                    .get("/own", (req, res) -> files.handle(withRest(req, req.query().get("p")), res))
                    .start();
            assertEquals(200, status("a.txt"), "the handler works when called this way");
            assertEquals(200, status("sub/"));
            for (String bad : new String[] {"sub/../a.txt", "../secret.txt", "..", "sub/..", "./a.txt", "sub/./index.html",
                    "../public/a.txt", "/a.txt", dir.resolve("secret.txt").toString(), "sub\\..\\a.txt", "a.txt\0", "sub//index.html"}) {
                assertEquals(404, status(bad), bad);
            }
            server.close();
            server = null;
            files.close();
        }
    }
}
