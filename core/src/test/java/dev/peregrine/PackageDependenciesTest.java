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
 * the {@code dev.peregrine.*} types it names (imports and qualified names, comments left out), and
 * checks the package graph. The API package ({@code dev.peregrine}) is both the facade that starts
 * everything and the home of the interfaces handlers see, so it is left out of the graph; among the
 * other packages there is no cycle, the connection layer names no protocol, and off-loop work never
 * names the server protocol that uses it.
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
            String src = Files.readString(p).replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "");
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

    @Test
    void theConnectionLayerNamesNoProtocolAndOffLoopWorkNeverNamesTheServer() throws IOException {
        Map<String, Set<String>> g = graph();
        for (String forbidden : List.of("server", "offloop", "route", "files", "web", "transport", "tls.engine", "proxy.engine",
                "http1")) {
            assertTrue(!g.get("loop").contains(forbidden), "loop names " + forbidden + ": " + g.get("loop"));
        }
        assertTrue(!g.get("offloop").contains("server"), "offloop names server: " + g.get("offloop"));
        // The connection layer has a configuration of its own (LoopConfig), so a client starts loops
        // without anything of the server's API.
        assertTrue(!g.get("loop").contains(""), "loop names the API package: " + g.get("loop"));
        for (String codec : List.of("http1", "buffer", "form", "cookie", "compress")) {
            for (String above : List.of("loop", "offloop", "server", "transport")) {
                assertTrue(!g.getOrDefault(codec, Set.of()).contains(above), codec + " names " + above + ": " + g.get(codec));
            }
        }
        for (Map.Entry<String, Set<String>> e : g.entrySet()) {
            if (!e.getKey().isEmpty() && !e.getKey().equals("server")) {
                assertTrue(!e.getValue().contains("server"), e.getKey() + " names server: only the API package may");
            }
        }
    }

    @Test
    void noCycleAmongTheInternalPackages() throws IOException {
        Map<String, Set<String>> g = graph();
        g.remove("");
        g.values().forEach(s -> s.remove(""));
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
