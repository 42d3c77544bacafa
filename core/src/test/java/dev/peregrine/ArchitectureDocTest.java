package dev.peregrine;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Keeps ARCHITECTURE.md true about what exists: every class it names in code spans (`loop/Connection`,
 * `Connection.switchTo`, `ServerSetup`) is declared somewhere in the project's sources (a top-level or
 * nested type, main or test), and a name given with its package path (`server/ServerSetup`) is in that
 * package, and a member named after a type of ours (`ServerSetup.listener`, `Server.Builder.staticFiles`) is
 * a word of a file that declares that type. Names of other projects' types that the document mentions are listed in {@link #ELSEWHERE}.
 */
class ArchitectureDocTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern CODE_SPAN = Pattern.compile("`([^`\\n]+)`");
    /** A type name: starts upper case and has a lower-case letter (so HTTP, TLS, GET are not types). */
    private static final Pattern TYPE = Pattern.compile("^[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*$");
    private static final Pattern PATH_TYPE = Pattern.compile("^((?:[a-z][a-z0-9]*/)+)([A-Z][A-Za-z0-9]*)");
    private static final Pattern DECLARATION = Pattern.compile("\\b(?:class|interface|enum|record|@interface)\\s+([A-Z][A-Za-z0-9]*)");

    /** Types of the JDK and of dependencies, and HTTP field names, that the document names in code spans. */
    private static final Set<String> ELSEWHERE = Set.of(
            "ByteBuffer", "ByteArrayOutputStream", "CompletableFuture", "ConcurrentHashMap", "Deflater", "Inflater",
            "EpollIoHandler", "EpollIoHandle", "EpollIoOps", "IoHandle", "IoUringIoHandler", "IoUringIoOps",
            "LinuxSocket", "MultiThreadIoEventLoopGroup", "MeterRegistry", "SSLEngine", "SSLContext", "SSLParameters",
            "SocketChannel", "Selector", "SelectionKey", "FileChannel", "ServerSocketChannel", "StandardProtocolFamily",
            "MpscUnboundedAtomicArrayQueue", "MpmcAtomicArrayQueue", "MpscAtomicArrayQueue", "ThreadLocal", "VarHandle",
            "HttpClient", "HttpServer", "System", "Runtime", "Thread", "String", "Object", "Executors",
            "BouncyCastleJsseProvider", "BouncyCastleProvider", "KeyManagerFactory", "JcaX509v3CertificateBuilder",
            "GZIPInputStream", "GZIPOutputStream", "Brotli4jLoader", "Zstd", "ObjectMapper", "Native", "Socket",
            "ServiceLoader", "Files", "Path", "Duration", "Instant", "Locale", "Blackhole", "AtomicInteger", "Long",
            "MethodHandle", "MethodHandles", "Runnable", "EventType", "AtomicLong", "IoUringIoHandle", "SSLException",
            "SSLHandshakeException",
            "Date", "Location", "Upgrade");

    @Test
    void everyClassItNamesExists() throws IOException {
        String doc = Files.readString(ROOT.resolve("ARCHITECTURE.md"));
        java.util.Map<String, java.util.List<String>> declared = new java.util.TreeMap<>();
        Set<String> files = new TreeSet<>();
        try (Stream<Path> s = Files.walk(ROOT)) {
            s.filter(p -> p.toString().endsWith(".java") && !p.toString().contains("/target/")
                            && !p.toString().contains("/.mirror/"))
                    .forEach(p -> {
                        files.add(ROOT.relativize(p).toString().replace('\\', '/'));
                        try {
                            String src = Files.readString(p);
                            Matcher m = DECLARATION.matcher(src);
                            while (m.find()) {
                                declared.computeIfAbsent(m.group(1), k -> new java.util.ArrayList<>()).add(src);
                            }
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    });
        }
        Set<String> missing = new TreeSet<>();
        Matcher spans = CODE_SPAN.matcher(doc);
        while (spans.find()) {
            String span = spans.group(1).trim();
            Matcher withPath = PATH_TYPE.matcher(span);
            if (withPath.find()) {
                String pkg = withPath.group(1);
                String type = withPath.group(2);
                if (files.stream().noneMatch(f -> f.endsWith("/dev/peregrine/" + pkg + type + ".java")
                        || f.endsWith("/" + pkg + type + ".java"))) {
                    missing.add(span + " (no " + pkg + type + ".java)");
                }
                continue;
            }
            String[] chain = span.split("[#( <,:=\\[]", 2)[0].split("\\.");
            if (chain.length == 0) {
                continue; // punctuation only, such as `..`
            }
            String first = chain[0];
            if (!TYPE.matcher(first).matches() || ELSEWHERE.contains(first)) {
                continue;
            }
            java.util.List<String> sources = declared.get(first);
            if (sources == null) {
                missing.add(span);
                continue;
            }
            sources = withSupertypes(sources, declared);
            for (int i = 1; i < chain.length; i++) {
                Pattern word = Pattern.compile("\\b" + Pattern.quote(chain[i]) + "\\b");
                if (!chain[i].isEmpty() && sources.stream().noneMatch(src -> word.matcher(src).find())) {
                    missing.add(span + " (no " + chain[i] + " where " + first + " is declared)");
                    break;
                }
            }
        }
        assertEquals(Set.of(), missing, "ARCHITECTURE.md names what no source declares");
    }

    private static final Pattern EXTENDS = Pattern.compile("\\bextends\\s+([A-Z][A-Za-z0-9]*)");

    /** The sources, and those of the types they extend (a builder's setters live in its superclasses). */
    private static java.util.List<String> withSupertypes(java.util.List<String> sources,
                                                       java.util.Map<String, java.util.List<String>> declared) {
        java.util.List<String> all = new java.util.ArrayList<>(sources);
        for (int i = 0; i < all.size() && i < 64; i++) {
            Matcher m = EXTENDS.matcher(all.get(i));
            while (m.find()) {
                for (String src : declared.getOrDefault(m.group(1), java.util.List.of())) {
                    if (!all.contains(src)) {
                        all.add(src);
                    }
                }
            }
        }
        return all;
    }
}
