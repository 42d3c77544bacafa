package dev.peregrine.docs;

import org.junit.jupiter.api.Test;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every {@code <pre>{@code ...}</pre>} example in core's javadoc compiles against the current API, so
 * an example cannot drift from the code it shows. Each example is compiled on its own inside a method
 * of a class that has a request and a response in scope and the few names examples lean on ({@code db},
 * {@code users}, {@code client}...: {@link Context}); a fragment starting with {@code .} continues
 * {@code Server.builder()}, and an ellipsis ({@code ...}) stands for "the rest", as a reader takes it.
 * The README's {@code ```java} blocks are held to the same: a block that is a whole class (the hello
 * world) is compiled as its own unit.
 */
class JavadocExamplesTest {
    private static final Pattern EXAMPLE = Pattern.compile("<pre>\\{@code(.*?)}</pre>", Pattern.DOTALL);
    private static final Path SOURCES = Path.of("../../core/src/main/java");

    /** The names the examples use without declaring them. */
    public abstract static class Context {
        public interface Db {
            Object query();
        }

        public interface Upstream {
            java.util.concurrent.CompletableFuture<String> fetch(String id);
        }

        public interface Logger {
            void info(String line);
        }

        /** A handler object with methods of its own, as {@code users::get} in the README uses it. */
        public interface Users extends dev.peregrine.Handler {
            void get(dev.peregrine.Request req, dev.peregrine.Response res) throws Exception;

            void create(dev.peregrine.Request req, dev.peregrine.Response res) throws Exception;
        }

        protected Db db;
        protected Users users;
        protected Upstream client;
        protected Logger logger;
        protected String id;
        /** The request and response of a handler the example is part of (fields, so lambdas may reuse the names). */
        protected dev.peregrine.Request req;
        protected dev.peregrine.Response res;

        protected static dev.peregrine.Handler log(dev.peregrine.Handler h) {
            return h;
        }
    }

    record Example(String file, int line, String code) {
    }

    private static final Pattern README_EXAMPLE = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

    static List<Example> examples() throws IOException {
        List<Example> all = new ArrayList<>();
        String readme = Files.readString(SOURCES.resolve("../../../../README.md"));
        Matcher r = README_EXAMPLE.matcher(readme);
        while (r.find()) {
            int line = 1 + (int) readme.substring(0, r.start()).chars().filter(c -> c == '\n').count();
            all.add(new Example("README.md", line, r.group(1).strip()));
        }
        try (Stream<Path> files = Files.walk(SOURCES.resolve("dev/peregrine"))) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java")).sorted()::iterator) {
                String s = Files.readString(f);
                Matcher m = EXAMPLE.matcher(s);
                while (m.find()) {
                    StringBuilder code = new StringBuilder();
                    for (String l : m.group(1).split("\n", -1)) {
                        code.append(l.replaceFirst("^\\s*\\* ?", "")).append('\n');
                    }
                    int line = 1 + (int) s.substring(0, m.start()).chars().filter(c -> c == '\n').count();
                    all.add(new Example(SOURCES.relativize(f).toString(), line, code.toString().strip()));
                }
            }
        }
        return all;
    }

    /** The example as a compilation unit: a class whose method holds it. */
    static String unit(String className, Example e) {
        if (e.code().matches("(?s)^(import [^\\n]*\\n)*\\s*public class \\w+.*")) { // a whole class: its own unit
            return "package dev.peregrine.docs;\n" + e.code().replaceFirst("public class \\w+", "class " + className);
        }
        String code = e.code()
                .replace("&lt;", "<").replace("&gt;", ">").replace("&#64;", "@").replace("&amp;", "&")
                .replaceAll("\\{\\s*\\.\\.\\.\\s*}", "{ }")          // { ... }: a body left out
                .replaceAll("(?m)^\\s*\\.\\.\\.\\s*$", "")            // a line of its own: the rest
                .replaceAll("\\)\\.\\.\\.", ");");                  // a chain's "...": it ends here
        if (code.startsWith(".")) {
            code = "Server.builder()\n" + code;
        }
        String last = code.replaceAll("//[^\\n]*", "").strip();
        if (!last.endsWith(";") && !last.endsWith("}")) {
            code = code + "\n;"; // an expression shown alone, or a builder chain
        }
        return "package dev.peregrine.docs;\n"
                + "import dev.peregrine.*;\nimport dev.peregrine.web.*;\nimport dev.peregrine.files.*;\n"
                + "import dev.peregrine.form.*;\nimport dev.peregrine.tls.*;\nimport java.nio.file.Path;\n"
                + "import java.time.Duration;\nimport java.util.NoSuchElementException;\n"
                + "import static org.junit.jupiter.api.Assertions.*;\n"
                + "@SuppressWarnings(\"all\")\nclass " + className + " extends JavadocExamplesTest.Context {\n"
                + "    void example() throws Exception {\n"
                + "// " + e.file() + ":" + e.line() + "\n" + code + "\n    }\n}\n";
    }

    @Test
    void everyJavadocExampleCompiles() throws IOException {
        List<Example> examples = examples();
        assertTrue(examples.size() >= 10, "examples found: " + examples.size());
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> failures = new ArrayList<>();
        Path out = Files.createTempDirectory("javadoc-examples");
        try (StandardJavaFileManager fm = javac.getStandardFileManager(null, null, null)) {
            for (int i = 0; i < examples.size(); i++) {
                Example e = examples.get(i);
                String name = "Example" + i;
                String source = unit(name, e);
                JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///" + name + ".java"), JavaFileObject.Kind.SOURCE) {
                    @Override
                    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                        return source;
                    }
                };
                DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
                List<String> options = List.of("-d", out.toString(), "-classpath", classPath(), "-proc:none");
                boolean ok = javac.getTask(null, fm, diagnostics, options, null, List.of(file)).call();
                if (!ok) {
                    StringBuilder why = new StringBuilder(e.file() + ":" + e.line() + " does not compile:\n");
                    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                        why.append("  ").append(d.getMessage(null)).append(" (example line ").append(d.getLineNumber() - 11).append(")\n");
                    }
                    failures.add(why + source);
                }
            }
        }
        assertTrue(failures.isEmpty(), failures.size() + " of " + examples.size() + " examples fail:\n" + String.join("\n", failures));
    }

    /** The test's class path, the entries of a manifest-only surefire jar included. */
    private static String classPath() throws IOException {
        List<String> entries = new ArrayList<>();
        for (String p : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            entries.add(p);
            if (p.endsWith(".jar")) {
                try (java.util.jar.JarFile jar = new java.util.jar.JarFile(p)) {
                    java.util.jar.Manifest mf = jar.getManifest();
                    String cp = mf == null ? null : mf.getMainAttributes().getValue("Class-Path");
                    if (cp != null) {
                        for (String u : cp.trim().split("\\s+")) {
                            entries.add(Path.of(URI.create(u.startsWith("file:") ? u : Path.of(p).getParent().toUri().resolve(u).toString())).toString());
                        }
                    }
                }
            }
        }
        return String.join(java.io.File.pathSeparator, entries);
    }
}
