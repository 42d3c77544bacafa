package dev.peregrine.web;

import dev.peregrine.Server;
import dev.peregrine.StaticOptions;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The static files' open-file cache over real sockets on NIO and epoll: files stay open between
 * requests up to the bound, a changed file is served as it is now, a removed one is 404, and every
 * descriptor is closed by the time the server has stopped, counted in {@code /proc/self/fd}: only the
 * descriptors open on the test's own files, since other tests' servers in the same JVM may still be
 * closing sockets of their own (io_uring closes a socket when its last send completes).
 */
@Timeout(120)
class StaticFileCacheTest {
    private static final int CACHED = 8;
    private static final int FILES = 30;

    @TempDir
    Path dir;

    private Path counted;

    /** Descriptors of this process open on a file under the test's directory. */
    private long fds() {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).startsWith(counted);
                } catch (IOException | UnsupportedOperationException e) {
                    return false; // closed between the listing and the look
                }
            }).count();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** One request on a fresh connection, closed after the response: status line and body. */
    private static String[] get(int port, String path) throws IOException {
        try (RawClient c = new RawClient(port)) {
            String text = c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").readToEnd();
            int end = text.indexOf("\r\n\r\n");
            return new String[] {text.substring(0, text.indexOf("\r\n")), text.substring(end + 4)};
        }
    }

    private Path root() throws IOException {
        counted = dir.toRealPath();
        Path root = dir.resolve("public");
        Files.createDirectories(root);
        for (int i = 0; i < FILES; i++) {
            Files.writeString(root.resolve("f" + i + ".txt"), "file " + i);
        }
        Files.writeString(root.resolve("app.js"), "console.log(1)");
        Files.writeString(root.resolve("app.js.gz"), "not really gzip, but a sibling");
        return root;
    }

    /** Serves every file a few times, changes and removes one each; every descriptor must be back to {@code base} after the stop. */
    private void exercise(String transport, Path root, long base) throws Exception {
        Files.writeString(root.resolve("f" + (FILES - 1) + ".txt"), "file " + (FILES - 1)); // as root() made it
        Server server = Server.builder().host("127.0.0.1").port(0).transport(transport).threads(2)
                .staticFiles("/s", root, StaticOptions.builder().openFileCache(CACHED).build()).start();
        try {
            int port = server.port();
            long started = fds();
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < FILES; i++) {
                    String[] r = get(port, "/s/f" + i + ".txt");
                    assertEquals("HTTP/1.1 200 OK", r[0]);
                    assertEquals("file " + i, r[1]);
                }
            }
            Await.until(() -> fds() == started + CACHED, () -> "the cache holds " + CACHED + " files open: " + (fds() - started));
            // a changed file (size and time) is served as it is now
            Path f = root.resolve("f" + (FILES - 1) + ".txt");
            Files.writeString(f, "changed and longer");
            Files.setLastModifiedTime(f, FileTime.fromMillis(Files.getLastModifiedTime(f).toMillis() + 5000));
            assertEquals("changed and longer", get(port, "/s/f" + (FILES - 1) + ".txt")[1]);
            // a removed file is 404 and its descriptor goes
            Files.delete(root.resolve("f" + (FILES - 2) + ".txt"));
            assertEquals("HTTP/1.1 404 Not Found", get(port, "/s/f" + (FILES - 2) + ".txt")[0]);
            Files.writeString(root.resolve("f" + (FILES - 2) + ".txt"), "file " + (FILES - 2));
            Await.until(() -> fds() <= started + CACHED, () -> "never more than the bound: " + (fds() - started));
        } finally {
            server.close();
        }
        Await.until(() -> fds() == base, () -> "every descriptor closed at stop: " + (fds() - base) + " left");
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void openFilesAreBoundedValidatedAndClosedAtStop(String transport) throws Exception {
        Path root = root();
        long before = fds();
        exercise(transport, root, before); // also loads every class (jar files stay open once read)
        long base = fds();
        exercise(transport, root, base);
        assertEquals(base, fds());
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aSiblingLinkedOutsideTheRootIsNotServed(String transport) throws Exception {
        Path root = root();
        Files.writeString(dir.resolve("secret.gz"), "outside the root");
        Files.writeString(root.resolve("lib.js"), "inside");
        Files.createSymbolicLink(root.resolve("lib.js.gz"), dir.resolve("secret.gz"));
        Server server = Server.builder().host("127.0.0.1").port(0).transport(transport).threads(1)
                .staticFiles("/s", root).start();
        try (RawClient c = new RawClient(server.port())) {
            String all = c.send("GET /s/lib.js HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n").readToEnd();
            assertTrue(all.startsWith("HTTP/1.1 200") && all.endsWith("\r\n\r\ninside") && !all.contains("Content-Encoding"), all);
        } finally {
            server.close();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void siblingsAndRangesComeFromTheCacheToo(String transport) throws Exception {
        Path root = root();
        Server server = Server.builder().host("127.0.0.1").port(0).transport(transport).threads(1)
                .staticFiles("/s", root).start();
        try {
            for (int i = 0; i < 3; i++) {
                try (RawClient c = new RawClient(server.port())) {
                    String all = c.send("GET /s/app.js HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n"
                            + "GET /s/f3.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=2-3\r\n\r\n"
                            + "HEAD /s/f4.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").readToEnd();
                    assertTrue(all.contains("Content-Encoding: gzip\r\n") && all.contains("not really gzip, but a sibling"), all);
                    assertTrue(all.contains("HTTP/1.1 206 Partial Content\r\n") && all.contains("Content-Range: bytes 2-3/6\r\n"), all);
                    assertTrue(all.contains("\r\n\r\nle"), all);
                    assertTrue(all.endsWith("Content-Length: 6\r\n\r\n") || all.contains("Content-Length: 6\r\n"), all);
                }
            }
        } finally {
            server.close();
        }
    }
}
