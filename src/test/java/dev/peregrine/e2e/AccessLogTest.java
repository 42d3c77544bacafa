package dev.peregrine.e2e;

import dev.peregrine.Execution;
import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import dev.peregrine.web.AccessLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Request ids and the access log over real sockets: the lines written for real requests (JDK client
 * and raw socket) are parsed back, in both formats; a full queue drops lines, counts them and says so
 * once; a renamed log file is followed (logrotate without copytruncate) and {@code reopen()} acts at once.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class AccessLogTest extends ServerTestBase {
    /** Apache combined plus %D and the request id. */
    private static final Pattern COMBINED = Pattern.compile(
            "^(\\S+) - - \\[(\\d{2}/\\w{3}/\\d{4}:\\d{2}:\\d{2}:\\d{2} \\+0000)] \"(\\S+) (\\S+) (HTTP/1\\.[01])\" (\\d{3}) (\\d+|-) "
                    + "(\"(?:[^\"\\\\]|\\\\.)*\"|-) (\"(?:[^\"\\\\]|\\\\.)*\"|-) (\\d+) (\"[^\"]*\"|-)$");

    @TempDir
    Path dir;

    AccessLogTest(ServerFactory factory) {
        super(factory);
    }

    private void restart(UnaryOperator<Server.Builder> settings) {
        server.close();
        server = factory.start(settings);
    }

    private RawResponse raw(String request) throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(RawClient.bytes(request));
            return RawResponse.read(s.getInputStream(), request.startsWith("HEAD"));
        }
    }

    private static Server.Builder routes(Server.Builder b) {
        return b.get("/slow", Execution.BLOCKING, (req, res) -> res.text("slow " + req.requestId()));
    }

    @Test
    void combinedLinesNameEveryRequestWithItsId() throws Exception {
        Path file = dir.resolve("logs/access.log");
        restart(b -> routes(b).requestIds(true).accessLog(AccessLog.combined(file)));
        HttpResponse<String> hello = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/plaintext?x=1&y=%22q%22")))
                .header("Referer", "https://ref.example/p").header("User-Agent", "jdk \"quoted\" agent").build(),
                HttpResponse.BodyHandlers.ofString());
        String helloId = hello.headers().firstValue("X-Request-Id").orElseThrow();
        RawResponse slow = raw("GET /slow HTTP/1.1\r\nHost: x\r\nX-Request-Id: client-7\r\nConnection: close\r\n\r\n");
        assertEquals("slow client-7", slow.text());
        assertEquals("client-7", slow.header("X-Request-Id"));
        RawResponse missing = raw("POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc");
        assertEquals(404, missing.status);
        RawResponse head = raw("HEAD /plaintext HTTP/1.0\r\n\r\n");
        assertEquals(200, head.status);
        server.close(); // the writer drains its queue before close returns

        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertEquals(4, lines.size(), () -> String.join("\n", lines));
        List<Matcher> m = new ArrayList<>();
        for (String line : lines) {
            Matcher x = COMBINED.matcher(line);
            assertTrue(x.matches(), () -> "not a combined line: " + line);
            m.add(x);
        }
        Matcher first = m.get(0);
        assertEquals("127.0.0.1", first.group(1));
        assertEquals("GET", first.group(3));
        assertEquals("/plaintext?x=1&y=%22q%22", first.group(4));
        assertEquals("HTTP/1.1", first.group(5));
        assertEquals("200", first.group(6));
        assertEquals("13", first.group(7));
        assertEquals("\"https://ref.example/p\"", first.group(8));
        assertEquals("\"jdk \\\"quoted\\\" agent\"", first.group(9), "quotes escaped as Apache does");
        assertEquals("\"" + helloId + "\"", first.group(11));
        assertEquals("/slow", m.get(1).group(4));
        assertEquals("\"client-7\"", m.get(1).group(11));
        assertEquals("13", m.get(1).group(7), "\"slow client-7\"");
        assertEquals("404", m.get(2).group(6), "the router's own answer is logged");
        assertEquals("POST", m.get(2).group(3));
        assertEquals("HEAD", m.get(3).group(3));
        assertEquals("HTTP/1.0", m.get(3).group(5));
        assertEquals("0", m.get(3).group(7), "a HEAD response sends no body bytes");
    }

    @Test
    void jsonLinesToAConsumer() throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        restart(b -> routes(b).accessLog(AccessLog.builder().format(AccessLog.Format.JSON).to(lines::add).build()));
        HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/json"))).header("User-Agent", "tab\there").build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("X-Request-Id").isEmpty(), "ids are off");
        Await.until(() -> lines.size() == 1, () -> "lines: " + lines);
        String line = lines.get(0);
        assertTrue(line.matches("\\{\"time\":\"\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z\",\"remote\":\"127\\.0\\.0\\.1\",\"method\":\"GET\","
                + "\"target\":\"/json\",\"protocol\":\"HTTP/1\\.1\",\"status\":200,\"bytes\":27,\"referer\":null,"
                + "\"userAgent\":\"tab\\\\u0009here\",\"durationMicros\":\\d+,\"requestId\":null}"), line);
    }

    /** A request whose User-Agent is {@code n} bytes of 0xFF: each one four characters in the log ({@code \xff}). */
    private static byte[] obsTextRequest(String path, int n) {
        byte[] head = RawClient.bytes("GET " + path + " HTTP/1.1\r\nHost: x\r\nUser-Agent: ");
        byte[] tail = RawClient.bytes("\r\n\r\n");
        byte[] r = new byte[head.length + n + tail.length];
        System.arraycopy(head, 0, r, 0, head.length);
        java.util.Arrays.fill(r, head.length, head.length + n, (byte) 0xFF);
        System.arraycopy(tail, 0, r, head.length + n, tail.length);
        return r;
    }

    @Test
    void eachFieldIsCutAtItsLimitWithoutSplittingAnEscape() throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        restart(b -> b.accessLog(AccessLog.builder().maxFieldLength(1024).to(lines::add).build()));
        try (Socket s = connect()) {
            s.getOutputStream().write(obsTextRequest("/plaintext?" + "q".repeat(2000), 12_000));
            assertEquals(200, RawResponse.read(s.getInputStream()).status);
        }
        Await.until("one line", () -> lines.size() == 1);
        String line = lines.get(0);
        Matcher m = COMBINED.matcher(line);
        assertTrue(m.matches(), line);
        String target = m.group(4);
        assertTrue(target.startsWith("/plaintext?qqq") && target.endsWith("q...") && target.length() == 1024 + 3, target);
        String agent = m.group(9);
        assertTrue(agent.startsWith("\"\\xff\\xff") && agent.endsWith("\\xff...\""), agent);
        assertTrue(agent.length() <= 1 + 1024 + 3 + 3 + 1, "escapes are whole, the field cut near 1,024: " + agent.length());
        assertTrue(line.length() < 2 * 1024 + 300, "12 KB of 0xFF made a line of " + line.length());
    }

    @Test
    void theQueueIsBoundedInBytesAsWellAsInLines() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> written = new CopyOnWriteArrayList<>();
        long budget = 64 * 1024;
        AccessLog log = AccessLog.builder().queueBytes(budget).maxFieldLength(65_536).to(line -> {
            entered.countDown();
            try {
                release.await(30, TimeUnit.SECONDS); // the disk is stuck
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            written.add(line);
        }).build();
        try {
            restart(b -> b.accessLog(log));
            assertEquals(200, raw("GET /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status);
            assertTrue(entered.await(20, TimeUnit.SECONDS), "the writer took the first line");
            int attacks = 40;
            try (Socket s = connect()) {
                for (int i = 0; i < attacks; i++) {
                    s.getOutputStream().write(obsTextRequest("/plaintext", 4_000));
                    assertEquals(200, RawResponse.read(s.getInputStream()).status, "the loop never waits for the log");
                }
            }
            release.countDown();
            Await.until(() -> written.size() + log.dropped() == 1 + attacks, () -> "written: " + written.size() + " dropped " + log.dropped());
            int length = written.get(1).length(); // every attack's line is as long: 16,000 characters of \\xff and the rest
            assertTrue(length > 16_000, "" + length);
            long kept = budget / length;
            assertEquals(attacks - kept, log.dropped(), "what fits in " + budget + " bytes is kept, the rest dropped and counted");
        } finally {
            release.countDown();
        }
    }

    @Test
    void aFullQueueDropsCountsAndWarnsOnce() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> written = new CopyOnWriteArrayList<>();
        AccessLog log = AccessLog.builder().queueCapacity(16).to(line -> {
            entered.countDown();
            try {
                release.await(30, TimeUnit.SECONDS); // the disk is stuck
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            written.add(line);
        }).build();
        List<LogRecord> warnings = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel() == Level.WARNING && String.valueOf(record.getMessage()).startsWith("access log")) {
                    warnings.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger logger = Logger.getLogger("dev.peregrine");
        logger.addHandler(capture);
        try {
            restart(b -> b.accessLog(log));
            assertEquals(200, raw("GET /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status);
            assertTrue(entered.await(20, TimeUnit.SECONDS), "the writer took the first line");
            try (Socket s = connect()) {
                StringBuilder pipelined = new StringBuilder();
                for (int i = 0; i < 40; i++) {
                    pipelined.append("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n");
                }
                s.getOutputStream().write(RawClient.bytes(pipelined.toString()));
                for (int i = 0; i < 40; i++) {
                    assertEquals(200, RawResponse.read(s.getInputStream()).status, "the loop never waits for the log");
                }
            }
            assertEquals(24, log.dropped(), "16 queued, 24 dropped and counted");
            release.countDown();
            Await.until(() -> written.size() == 17, () -> "written: " + written.size());
            Await.until(() -> warnings.size() == 1, () -> "warnings: " + warnings.size());
            assertTrue(warnings.get(0).getMessage().contains("24 line(s) dropped"), warnings.get(0).getMessage());
            server.close();
            assertEquals(1, warnings.size(), "reported once");
            assertEquals(17, log.written());
        } finally {
            release.countDown();
            logger.removeHandler(capture);
        }
    }

    @Test
    void aRotatedFileIsFollowedAndReopenMovesOnAtOnce() throws Exception {
        Path file = dir.resolve("logs/access.log");
        AccessLog log = AccessLog.combined(file);
        restart(b -> b.accessLog(log));
        int[] sent = {0};
        Runnable request = () -> {
            try {
                assertEquals(200, raw("GET /plaintext?n=" + sent[0]++ + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        };
        request.run();
        Await.until(() -> log.written() == 1, () -> "written: " + log.written());

        // logrotate's create mode: the file is renamed; the writer notices within a second of lines.
        Path rotated = dir.resolve("logs/access.log.1");
        Files.move(file, rotated);
        Await.until(() -> {
            request.run();
            return Files.exists(file);
        }, () -> "the writer did not reopen " + file);
        Await.until(() -> log.written() == sent[0], () -> "written " + log.written() + " of " + sent[0]);
        Await.until(() -> lineCount(rotated) + lineCount(file) == sent[0], () -> "lines not flushed");
        List<String> old = Files.readAllLines(rotated);
        List<String> fresh = Files.readAllLines(file);
        assertTrue(old.size() >= 1 && !fresh.isEmpty(), old.size() + " + " + fresh.size());
        List<String> all = new ArrayList<>(old);
        all.addAll(fresh);
        for (int i = 0; i < sent[0]; i++) {
            assertTrue(all.get(i).contains("/plaintext?n=" + i + " "), "each line once, in order: " + all.get(i));
        }

        // An explicit reopen: effective for the very next line.
        Path moved = dir.resolve("logs/access.log.2");
        Files.move(file, moved);
        log.reopen();
        request.run();
        Await.until(() -> lineCount(file) == 1, () -> "the next line goes to the reopened file");
        assertTrue(Files.readAllLines(file).get(0).contains("/plaintext?n=" + (sent[0] - 1) + " "));
        assertEquals(fresh.size(), lineCount(moved), "nothing more in the moved file");
        assertEquals(0, log.dropped());
    }

    private static long lineCount(Path p) {
        try {
            return Files.exists(p) ? Files.readAllLines(p).size() : 0;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
