package dev.peregrine;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keeps ARCHITECTURE.md's "dependencies point down" true: reads every main source file of core, takes
 * the {@code dev.peregrine.*} types it names (imports and qualified names; comments and string
 * literals left out), and checks the package graph, the API package ({@code dev.peregrine}, "" here)
 * included: there is no cycle, the API names only the packages below it (it reaches the server
 * through {@code ServerEngine} and {@link java.util.ServiceLoader}), the connection layer names no
 * protocol, and off-loop work never names the server protocol that uses it.
 */
class PackageDependenciesTest {
    private static final Pattern QUALIFIED = Pattern.compile("\\bdev\\.peregrine((?:\\.[a-z][a-z0-9]*)*)\\.[A-Z]");
    private static final Path MAIN = Path.of("src/main/java");

    /** Package (without the {@code dev.peregrine} prefix; "" is the API package) to the packages it names. */
    private static Map<String, Set<String>> graph() throws IOException {
        Map<String, Set<String>> deps = new TreeMap<>();
        List<Path> files;
        try (Stream<Path> s = Files.walk(MAIN.resolve("dev/peregrine"))) {
            files = s.filter(p -> p.toString().endsWith(".java")).toList();
        }
        for (Path p : files) {
            String pkg = MAIN.resolve("dev/peregrine").relativize(p.getParent()).toString().replace('/', '.');
            String src = code(Files.readString(p));
            Set<String> named = deps.computeIfAbsent(pkg, k -> new TreeSet<>());
            Matcher m = QUALIFIED.matcher(src);
            while (m.find()) {
                String target = m.group(1).isEmpty() ? "" : m.group(1).substring(1);
                if (!target.equals(pkg)) {
                    named.add(target);
                }
            }
        }
        return deps;
    }

    /**
     * {@code src} without comments, text blocks, string and char literals: a name in a string
     * ({@code @Name("dev.peregrine.Rejection")}) is no dependency. One pass, so that a quote inside a
     * comment or a comment marker inside a string is read as what it is.
     */
    static String code(String src) {
        StringBuilder out = new StringBuilder(src.length());
        int i = 0;
        int n = src.length();
        while (i < n) {
            char c = src.charAt(i);
            if (c == '/' && i + 1 < n && src.charAt(i + 1) == '*') {
                int end = src.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
                out.append(' ');
            } else if (c == '/' && i + 1 < n && src.charAt(i + 1) == '/') {
                int end = src.indexOf('\n', i);
                i = end < 0 ? n : end;
            } else if (src.startsWith("\"\"\"", i)) {
                int end = src.indexOf("\"\"\"", i + 3);
                while (end > 0 && src.charAt(end - 1) == '\\') {
                    end = src.indexOf("\"\"\"", end + 1);
                }
                i = end < 0 ? n : end + 3;
                out.append("\"\"");
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < n && src.charAt(j) != c && src.charAt(j) != '\n') {
                    j += src.charAt(j) == '\\' ? 2 : 1;
                }
                i = j + 1;
                out.append(c).append(c);
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    @Test
    void stringsAndCommentsNameNothing() {
        String src = "@Name(\"dev.peregrine.Rejection\") /* dev.peregrine.server.X */ char q = '\"';\n"
                + "String t = \"\"\"\n dev.peregrine.route.Router\n\"\"\"; // dev.peregrine.h2.Y\n"
                + "String s = \"a \\\" dev.peregrine.loop.Z\"; dev.peregrine.buffer.Ascii.x();";
        Matcher m = QUALIFIED.matcher(code(src));
        List<String> found = new ArrayList<>();
        while (m.find()) {
            found.add(m.group(1));
        }
        assertEquals(List.of(".buffer"), found);
    }

    @Test
    void theApiNamesOnlyPackagesBelowIt() throws IOException {
        Map<String, Set<String>> g = graph();
        // What the API may name: packages that never name it (values and codecs below it).
        Set<String> below = Set.of("buffer", "compress", "compress.engine", "cookie", "form", "json", "metrics", "proxy", "tls", "web",
                "websocket");
        Set<String> named = new TreeSet<>(g.get(""));
        named.removeAll(below);
        assertEquals(Set.of(), named, "the API package names packages above it (reach them through ServerEngine)");
        for (String p : below) {
            assertTrue(!g.getOrDefault(p, Set.of()).contains(""), p + " names the API package: " + g.get(p));
        }
    }

    @Test
    void theConnectionLayerNamesNoProtocolAndOffLoopWorkNeverNamesTheServer() throws IOException {
        Map<String, Set<String>> g = graph();
        for (String forbidden : List.of("server", "offloop", "route", "files", "web", "transport", "tls.engine", "proxy.engine",
                "http1", "exchange")) {
            assertTrue(!g.get("loop").contains(forbidden), "loop names " + forbidden + ": " + g.get("loop"));
        }
        assertTrue(!g.get("offloop").contains("server"), "offloop names server: " + g.get("offloop"));
        // The connection layer has a configuration of its own (LoopConfig), so a client starts loops
        // without anything of the server's API.
        assertTrue(!g.get("loop").contains(""), "loop names the API package: " + g.get("loop"));
        for (String codec : List.of("http1", "exchange", "buffer", "form", "cookie", "compress")) {
            for (String above : List.of("loop", "offloop", "server", "transport")) {
                assertTrue(!g.getOrDefault(codec, Set.of()).contains(above), codec + " names " + above + ": " + g.get(codec));
            }
        }
        for (Map.Entry<String, Set<String>> e : g.entrySet()) {
            if (!e.getKey().equals("server")) {
                assertTrue(!e.getValue().contains("server"), e.getKey() + " names server: nothing above it does");
            }
        }
    }

    /**
     * Issue 22: {@code http1} is the HTTP/1.1 byte codec (parser, framer, chunked codec, encoder) and
     * {@code exchange} the protocol-neutral views it fills and reads (HTTP/2 and teleport fill them
     * too). The views build on the codec, never the reverse: the parser writes a {@code RequestHead}
     * and the encoder reads a {@code ResponseSource}, which the views extend.
     */
    @Test
    void theHttp1CodecNamesNothingOfTheExchange() throws IOException {
        Map<String, Set<String>> g = graph();
        assertTrue(g.containsKey("exchange") && g.containsKey("http1"), "packages moved? " + g.keySet());
        assertTrue(!g.get("http1").contains("exchange"), "http1 names exchange: " + g.get("http1"));
        assertTrue(g.get("exchange").contains("http1"), "exchange builds on http1: " + g.get("exchange"));
        for (String above : List.of("", "route", "h2", "offloop", "server", "files", "websocket.engine")) {
            assertTrue(!g.get("http1").contains(above), "the codec http1 names " + above + ": " + g.get("http1"));
        }
    }

    @Test
    void noCycleInThePackageGraphTheApiIncluded() throws IOException {
        Map<String, Set<String>> g = graph();
        List<List<String>> cycles = new ArrayList<>();
        // Tarjan's strongly connected components: any component of two or more packages is a cycle.
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        int[] counter = {0};
        for (String v : g.keySet()) {
            if (!index.containsKey(v)) {
                strongConnect(v, g, index, low, stack, onStack, counter, cycles);
            }
        }
        assertEquals(List.of(), cycles, "package cycles (graph: " + g + ")");
    }

    private static void strongConnect(String v, Map<String, Set<String>> g, Map<String, Integer> index,
                                      Map<String, Integer> low, Deque<String> stack, Set<String> onStack,
                                      int[] counter, List<List<String>> cycles) {
        index.put(v, counter[0]);
        low.put(v, counter[0]++);
        stack.push(v);
        onStack.add(v);
        for (String w : g.getOrDefault(v, Set.of())) {
            if (!index.containsKey(w)) {
                strongConnect(w, g, index, low, stack, onStack, counter, cycles);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            List<String> component = new ArrayList<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) {
                cycles.add(component);
            }
        }
    }
}
