package dev.peregrine;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Composition over inheritance (ARCHITECTURE.md): no main class of the project's modules is more than
 * one superclass of ours deep. Reads every main source, takes each {@code class X ... extends Y} whose
 * Y is declared in the project's main sources, and follows the chains.
 * There is no exception: {@code Server.Builder} extends {@code ServerSettings} only.
 */
class InheritanceDepthTest {
    private static final Pattern EXTENDS = Pattern.compile(
            "\\bclass\\s+([A-Z][A-Za-z0-9]*)(?:<[^{]*?>)?\\s+extends\\s+([A-Z][A-Za-z0-9]*)");

    @Test
    void noClassIsMoreThanOneSuperclassOfOursDeep() throws IOException {
        Map<String, String> superOf = new TreeMap<>();
        Set<String> ours = new TreeSet<>();
        Pattern declared = Pattern.compile("\\b(?:class|interface|enum|record)\\s+([A-Z][A-Za-z0-9]*)");
        try (Stream<Path> s = Files.walk(Path.of(".."))) {
            for (Path p : s.filter(f -> f.toString().endsWith(".java") && f.toString().contains("/src/main/")
                    && !f.toString().contains("/target/")).toList()) {
                String src = Files.readString(p).replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "");
                Matcher d = declared.matcher(src);
                while (d.find()) {
                    ours.add(d.group(1));
                }
                Matcher m = EXTENDS.matcher(src);
                while (m.find()) {
                    superOf.put(m.group(1), m.group(2));
                }
            }
        }
        Set<String> tooDeep = new TreeSet<>();
        for (String c : superOf.keySet()) {
            StringBuilder chain = new StringBuilder(c);
            int depth = 0;
            for (String s = superOf.get(c); s != null && ours.contains(s) && depth < 16; s = superOf.get(s)) {
                chain.append(" -> ").append(s);
                depth++;
            }
            if (depth > 1) {
                tooDeep.add(chain.toString());
            }
        }
        assertEquals(Set.of(), tooDeep, "chains deeper than one superclass of ours");
    }
}
