package dev.peregrine.transport.epoll;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server in a child JVM where epoll cannot run — Netty's jars missing from the class path, or its
 * native library refused ({@code -Dio.netty.transport.noNative=true}) — and where it runs: auto falls
 * back to NIO with one INFO line and no stack trace, forced epoll fails with the reason, and an epoll
 * server with native access enabled prints no warning.
 */
class EpollFallbackTest {
    /** One record per line, so that "one line" can be checked. */
    private static final String ONE_LINE_LOGS = "-Djava.util.logging.SimpleFormatter.format=%4$s %5$s%6$s%n";

    private static final class Result {
        final int exit;
        final String out;
        final String err;

        Result(int exit, String out, String err) {
            this.exit = exit;
            this.out = out;
            this.err = err;
        }

        @Override
        public String toString() {
            return "exit " + exit + "\nstdout:\n" + out + "\nstderr:\n" + err;
        }
    }

    private static Result run(boolean withNetty, List<String> jvmFlags, String transport) throws Exception {
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> withNetty || !new File(e).getName().startsWith("netty-"))
                .collect(Collectors.joining(File.pathSeparator));
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmFlags);
        cmd.add(ONE_LINE_LOGS);
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add(TransportProbe.class.getName());
        cmd.add(transport);
        Path out = Files.createTempFile("probe", ".out");
        Path err = Files.createTempFile("probe", ".err");
        try {
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("probe did not finish: " + cmd);
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static void assertNoStackTrace(Result r) {
        assertFalse(r.err.contains("\tat ") || r.err.contains("Exception") || r.err.contains("Error:"), r.toString());
    }

    private static long linesContaining(String text, String part) {
        return text.lines().filter(l -> l.contains(part)).count();
    }

    @Test
    void withoutNettyJarsAutoServesOnNioAfterOneInfoLine() throws Exception {
        Result r = run(false, List.of("--enable-native-access=ALL-UNNAMED"), "auto");
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.out.contains("transport=nio ok"), r.toString());
        assertEquals(1, linesContaining(r.err, "epoll transport unavailable"), r.toString());
        assertTrue(r.err.contains("INFO epoll transport unavailable (netty-transport-native-epoll cannot be loaded"), r.toString());
        assertTrue(r.err.contains("(nio transport, 1 loop)"), r.toString());
        assertNoStackTrace(r);
    }

    @Test
    void withoutNettyJarsForcedEpollFailsWithTheReason() throws Exception {
        Result r = run(false, List.of(), "epoll");
        assertEquals(3, r.exit, r.toString());
        assertTrue(r.out.startsWith("failed: transport 'epoll' requested but unavailable: netty-transport-native-epoll cannot be loaded"),
                r.toString());
        assertNoStackTrace(r);
    }

    @Test
    void withNativeLibraryRefusedAutoFallsBackAndForcedEpollFails() throws Exception {
        List<String> noNative = List.of("--enable-native-access=ALL-UNNAMED", "-Dio.netty.transport.noNative=true");
        Result auto = run(true, noNative, "auto");
        assertEquals(0, auto.exit, auto.toString());
        assertTrue(auto.out.contains("transport=nio ok"), auto.toString());
        assertEquals(1, linesContaining(auto.err, "epoll transport unavailable"), auto.toString());
        assertTrue(auto.err.contains("io.netty.transport.noNative"), auto.toString());
        assertNoStackTrace(auto);

        Result forced = run(true, noNative, "epoll");
        assertEquals(3, forced.exit, forced.toString());
        assertTrue(forced.out.contains("requested but unavailable: ") && forced.out.contains("io.netty.transport.noNative"),
                forced.toString());
        assertNoStackTrace(forced);
    }

    @Test
    void epollWithNativeAccessEnabledPrintsNoWarning() throws Exception {
        Result r = run(true, List.of("--enable-native-access=ALL-UNNAMED"), "epoll");
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.out.contains("transport=epoll ok"), r.toString());
        assertFalse(r.err.contains("WARNING"), r.toString());
        assertTrue(r.err.contains("(epoll transport, 1 loop)"), r.toString());
    }
}
