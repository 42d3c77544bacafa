package dev.peregrine.teleport;

import dev.peregrine.Handlers;
import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.web.AccessLog;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Teleport requests get request ids, access-log lines and request-duration histograms, as over HTTP/1.1, whatever ran the handler. */
class TeleportOpsTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void requestIdsAccessLogAndDurations(String transport) throws Exception {
        Path log = dir.resolve("access-" + transport + ".log");
        try (AccessLog access = AccessLog.combined(log);
             Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).teleport(0)
                     .requestIds(true).accessLog(access).requestDurations(true)
                     .get("/inline", (req, res) -> res.text("i"))
                     .get("/blocking", Handlers.blocking((req, res) -> res.text("b")))
                     .get("/async", (req, res) -> {
                         dev.peregrine.Completion done = res.async();
                         new Thread(() -> {
                             done.response().status(201).text("a");
                             done.complete();
                         }).start();
                     })
                     .start();
             TestPeer p = TestPeer.open(server.teleportPort())) {
            p.write(TestPeer.request(1, "GET /inline HTTP/1.1\r\nHost: t\r\nX-Request-Id: given-id-1\r\n\r\n"),
                    TestPeer.request(2, TestPeer.get("/blocking")), TestPeer.request(3, TestPeer.get("/async")));
            for (int i = 0; i < 3; i++) {
                TestPeer.Got g = p.read();
                assertTrue(g.text().contains("X-Request-Id: "), g.text());
                if (g.id() == 1) {
                    assertTrue(g.text().contains("X-Request-Id: given-id-1\r\n"), "a valid incoming id is kept: " + g.text());
                }
            }
            Await.until("three timed requests", () -> server.metrics().requestDurationCount("/inline", "GET", 200) == 1
                    && server.metrics().requestDurationCount("/blocking", "GET", 200) == 1
                    && server.metrics().requestDurationCount("/async", "GET", 201) == 1);
            Await.until("three access-log lines", () -> lines(log) == 3);
            String all = Files.readString(log);
            assertTrue(all.contains("\"GET /inline HTTP/1.1\" 200 1"), all);
            assertTrue(all.contains("\"GET /blocking HTTP/1.1\" 200 1"), all);
            assertTrue(all.contains("\"GET /async HTTP/1.1\" 201 1"), all);
            assertEquals(3, lines(log));
        }
    }

    private static long lines(Path log) {
        try {
            return Files.exists(log) ? Files.readAllLines(log).size() : 0;
        } catch (java.io.IOException e) {
            return -1;
        }
    }
}
