package dev.peregrine.e2e;

import dev.peregrine.Server;
import dev.peregrine.client.HttpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The module descriptors ({@code dev.peregrine}, {@code dev.peregrine.client}) as an application on
 * the module path sees them, on the JDK running the tests (CI runs the suite on 17 and on 25).
 *
 * <p>An application module {@code demo.app} is compiled against the built jars on the module path
 * and started in a child JVM: it serves a route, calls it with the client, and prints what its
 * module layer says. A second module that imports an internal package must not compile. Neither run
 * may print a {@code WARNING} line (JDK 24+ warns about native access unless it is granted).
 */
class ModulePathTest {

    private static final String APP_MODULE = """
            module demo.app {
                requires dev.peregrine;
                requires dev.peregrine.client;
            }
            """;

    private static final String APP_MAIN = """
            package demo;

            import dev.peregrine.Server;
            import dev.peregrine.client.HttpClient;
            import java.util.TreeSet;

            public class Main {
                public static void main(String[] args) throws Exception {
                    try (Server server = Server.builder().port(0).threads(1)
                                 .get("/hi", (req, res) -> res.body("hi from " + Server.class.getModule().getName()))
                                 .start();
                         HttpClient client = HttpClient.builder().build()) {
                        System.out.println("body=" + client.get("http://127.0.0.1:" + server.port() + "/hi").text());
                        System.out.println("transport=" + server.transport());
                        TreeSet<String> open = new TreeSet<>();
                        for (var e : Server.class.getModule().getDescriptor().exports()) {
                            if (!e.isQualified()) {
                                open.add(e.source());
                            }
                        }
                        System.out.println("exports=" + open);
                    }
                }
            }
            """;

    private static final String SNEAKY_MODULE = """
            module demo.sneaky {
                requires dev.peregrine;
            }
            """;

    private static final String SNEAKY_MAIN = """
            package sneaky;

            public class Main {
                dev.peregrine.loop.Connection connection;
            }
            """;

    private static final Set<String> API_PACKAGES = Set.of(
            "dev.peregrine", "dev.peregrine.compress", "dev.peregrine.cookie", "dev.peregrine.files", "dev.peregrine.form",
            "dev.peregrine.json", "dev.peregrine.metrics", "dev.peregrine.proxy", "dev.peregrine.tls", "dev.peregrine.web", "dev.peregrine.websocket");

    @TempDir
    Path dir;

    @Test
    void anApplicationModuleServesAndCallsOnNioAndSeesOnlyTheApi() throws Exception {
        Path app = compile("demo.app", APP_MODULE, "demo/Main.java", APP_MAIN, peregrineModules());
        Run run = run(app, peregrineModules(), List.of("-Dperegrine.transport=nio"));
        assertEquals(0, run.exit, run.toString());
        assertTrue(run.out.contains("body=hi from dev.peregrine"), run.toString());
        assertTrue(run.out.contains("transport=NIO"), run.toString());
        assertEquals("exports=" + new java.util.TreeSet<>(API_PACKAGES), line(run.out, "exports="), run.toString());
        assertNoWarnings(run);
    }

    @Test
    void nettysEpollWorksOnTheModulePathWhenTheApplicationAddsIt() throws Exception {
        assumeTrue(dev.peregrine.transport.epoll.EpollAvailability.isAvailable(),
                "Netty's native epoll is not available on this machine");
        List<Path> path = new ArrayList<>(peregrineModules());
        path.addAll(nettyEpollModules());
        Path app = compile("demo.app", APP_MODULE, "demo/Main.java", APP_MAIN, path);
        String nativeModule = "io.netty.transport.epoll.linux." + System.getProperty("os.arch").replace("amd64", "x86_64");
        Run run = run(app, path, List.of(
                "--add-modules", "io.netty.transport.classes.epoll," + nativeModule,
                "--enable-native-access=io.netty.common",
                "-Dperegrine.transport=epoll"));
        assertEquals(0, run.exit, run.toString());
        assertTrue(run.out.contains("body=hi from dev.peregrine"), run.toString());
        assertTrue(run.out.contains("transport=EPOLL"), run.toString());
        assertNoWarnings(run);
    }

    @Test
    void nettysIoUringWorksOnTheModulePathWhenTheApplicationAddsIt() throws Exception {
        assumeTrue(dev.peregrine.transport.iouring.IoUringAvailability.isAvailable(),
                "io_uring is not available on this machine");
        List<Path> path = new ArrayList<>(peregrineModules());
        path.addAll(nettyModules(io.netty.channel.uring.IoUring.class, "libnetty_transport_native_io_uring42_"));
        Path app = compile("demo.app", APP_MODULE, "demo/Main.java", APP_MAIN, path);
        String nativeModule = "io.netty.transport.io_uring.linux." + System.getProperty("os.arch").replace("amd64", "x86_64");
        Run run = run(app, path, List.of(
                "--add-modules", "io.netty.transport.classes.io_uring," + nativeModule,
                "--enable-native-access=io.netty.common",
                "-Dperegrine.transport=io_uring"));
        assertEquals(0, run.exit, run.toString());
        assertTrue(run.out.contains("body=hi from dev.peregrine"), run.toString());
        assertTrue(run.out.contains("transport=IO_URING"), run.toString());
        assertNoWarnings(run);
        if (kernelHasRecvRing()) {
            // The receive ring is reached through Netty internals, which the module path closes: one INFO line.
            assertTrue(run.err.contains("no multishot receive into a provided-buffer ring"), run.toString());
        }
        // So are direct sends (IORING_OP_SEND): one INFO line, and sends are SENDMSGs through Netty.
        assertTrue(run.err.contains("sends are IORING_OP_SENDMSG"), run.toString());
    }

    /** With the {@code --add-opens} docs/transports.md names, the receive ring and direct sends are used: no INFO line about them. */
    @Test
    void ioUringsReceiveRingWorksOnTheModulePathWithItsAddOpens() throws Exception {
        assumeTrue(dev.peregrine.transport.iouring.IoUringAvailability.isAvailable() && kernelHasRecvRing(),
                "io_uring, or its provided-buffer rings and multishot receive, are not available on this machine");
        List<Path> path = new ArrayList<>(peregrineModules());
        path.addAll(nettyModules(io.netty.channel.uring.IoUring.class, "libnetty_transport_native_io_uring42_"));
        Path app = compile("demo.app", APP_MODULE, "demo/Main.java", APP_MAIN, path);
        String nativeModule = "io.netty.transport.io_uring.linux." + System.getProperty("os.arch").replace("amd64", "x86_64");
        Run run = run(app, path, List.of(
                "--add-modules", "io.netty.transport.classes.io_uring," + nativeModule,
                "--add-opens", "io.netty.transport.classes.io_uring/io.netty.channel.uring=dev.peregrine",
                "--enable-native-access=io.netty.common",
                "-Dperegrine.transport=io_uring"));
        assertEquals(0, run.exit, run.toString());
        assertTrue(run.out.contains("body=hi from dev.peregrine"), run.toString());
        assertTrue(run.out.contains("transport=IO_URING"), run.toString());
        assertFalse(run.err.contains("no multishot receive"), run.toString());
        assertFalse(run.err.contains("sends are IORING_OP_SENDMSG"), run.toString());
        assertNoWarnings(run);
    }

    private static boolean kernelHasRecvRing() {
        return io.netty.channel.uring.IoUring.isRegisterBufferRingSupported() && io.netty.channel.uring.IoUring.isRecvMultishotEnabled();
    }

    @Test
    void anInternalPackageDoesNotCompileFromAnotherModule() throws Exception {
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        boolean compiled = javac("demo.sneaky", SNEAKY_MODULE, "sneaky/Main.java", SNEAKY_MAIN, peregrineModules(), diagnostics);
        assertFalse(compiled, "a module compiled against dev.peregrine.loop");
        String messages = diagnostics.getDiagnostics().stream()
                .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
                .map(d -> d.getMessage(null))
                .collect(Collectors.joining("\n"));
        assertTrue(messages.contains("dev.peregrine.loop") && messages.contains("not visible"), messages);
    }

    // ---- helpers ----

    /** Core, client and JCTools: the module path of an application that uses the NIO transport. */
    private static List<Path> peregrineModules() throws URISyntaxException {
        return List.of(locationOf(Server.class), locationOf(HttpClient.class),
                locationOf(org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue.class));
    }

    /** Netty's epoll classes, what they require, and the native library jar for this machine. */
    private static List<Path> nettyEpollModules() throws URISyntaxException, IOException {
        return nettyModules(io.netty.channel.epoll.Epoll.class, "libnetty_transport_native_epoll_");
    }

    /** A Netty native transport's classes ({@code transport}'s jar), what they require, and its native jar here. */
    private static List<Path> nettyModules(Class<?> transport, String libraryPrefix) throws URISyntaxException, IOException {
        Set<Path> jars = new LinkedHashSet<>();
        jars.add(locationOf(transport));
        jars.add(locationOf(io.netty.channel.unix.Socket.class));
        jars.add(locationOf(io.netty.channel.IoEventLoop.class));
        jars.add(locationOf(io.netty.util.concurrent.FastThreadLocalThread.class));
        jars.add(locationOf(io.netty.buffer.ByteBuf.class));
        jars.add(locationOf(io.netty.resolver.AddressResolver.class));
        String arch = System.getProperty("os.arch").replace("amd64", "x86_64");
        URL lib = ModulePathTest.class.getClassLoader()
                .getResource("META-INF/native/" + libraryPrefix + arch + ".so");
        assumeTrue(lib != null && lib.getProtocol().equals("jar"), "no native jar " + libraryPrefix + " for " + arch);
        String jar = lib.getPath().substring("file:".length(), lib.getPath().indexOf("!/"));
        jars.add(Path.of(new java.net.URI("file:" + jar)));
        return new ArrayList<>(jars);
    }

    private static Path locationOf(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private Path compile(String module, String descriptor, String mainPath, String main, List<Path> modulePath)
            throws IOException {
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        assertTrue(javac(module, descriptor, mainPath, main, modulePath, diagnostics),
                () -> diagnostics.getDiagnostics().toString());
        return dir.resolve("out");
    }

    private boolean javac(String module, String descriptor, String mainPath, String main, List<Path> modulePath,
                          DiagnosticCollector<JavaFileObject> diagnostics) throws IOException {
        Path src = dir.resolve("src").resolve(module);
        Files.createDirectories(src.resolve(mainPath).getParent());
        Files.writeString(src.resolve("module-info.java"), descriptor);
        Files.writeString(src.resolve(mainPath), main);
        Path out = Files.createDirectories(dir.resolve("out"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8)) {
            List<String> options = List.of("--release", "17", "-d", out.toString(),
                    "--module-path", join(modulePath));
            return javac.getTask(null, files, diagnostics, options, null,
                    files.getJavaFileObjects(src.resolve("module-info.java"), src.resolve(mainPath))).call();
        }
    }

    private Run run(Path app, List<Path> modulePath, List<String> options) throws IOException, InterruptedException {
        List<Path> path = new ArrayList<>(modulePath);
        path.add(app);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx64m");
        command.addAll(options);
        command.add("--module-path");
        command.add(join(path));
        command.add("-m");
        command.add("demo.app/demo.Main");
        Path out = dir.resolve("stdout.txt");
        Path err = dir.resolve("stderr.txt");
        Process process = new ProcessBuilder(command)
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        // A guard against a hung child, not a timing assertion: the app exits as soon as it has printed.
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        return new Run(process.exitValue(), Files.readString(out), Files.readString(err), command);
    }

    private static void assertNoWarnings(Run run) {
        List<String> warnings = run.err.lines().filter(l -> l.startsWith("WARNING")).collect(Collectors.toList());
        assertTrue(warnings.isEmpty(), () -> "warnings on " + Runtime.version() + ":\n" + run);
    }

    private static String line(String text, String prefix) {
        return text.lines().filter(l -> l.startsWith(prefix)).findFirst().orElse("");
    }

    private static String join(List<Path> paths) {
        return paths.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));
    }

    private record Run(int exit, String out, String err, List<String> command) {
        @Override
        public String toString() {
            return "exit " + exit + "\n$ " + String.join(" ", command) + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }
}
