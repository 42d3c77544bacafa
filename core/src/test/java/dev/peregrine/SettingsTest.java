package dev.peregrine;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SettingsTest {
    private static final Path DOC = Path.of("..", "docs", "settings.md");

    /**
     * docs/settings.md is generated from the registry; this fails when they differ. To regenerate:
     * {@code mvn -pl core -am verify -Dtest=SettingsTest -DwriteSettingsDoc=true -Dsurefire.failIfNoSpecifiedTests=false}.
     */
    @Test
    void docsSettingsMdIsGeneratedFromTheCode() throws IOException {
        String generated = Settings.markdown();
        if (Boolean.getBoolean("writeSettingsDoc")) {
            Files.createDirectories(DOC.getParent());
            Files.writeString(DOC, generated, StandardCharsets.UTF_8);
        }
        assertTrue(Files.exists(DOC), "docs/settings.md is missing: regenerate it (see this test's javadoc)");
        assertEquals(generated, Files.readString(DOC, StandardCharsets.UTF_8),
                "docs/settings.md differs from the code: regenerate it (see this test's javadoc)");
    }

    /** A new scalar builder option without a registry entry fails here, so the table cannot drift. */
    @Test
    void everyScalarBuilderSettingIsInTheRegistry() {
        // ProxyProtocol has a one-line text form (ProxyProtocol.parse: address blocks), so it is settable from outside too.
        Set<Class<?>> scalar = Set.of(int.class, long.class, boolean.class, String.class, Duration.class, Execution.class,
                dev.peregrine.proxy.ProxyProtocol.class);
        Set<String> methods = new TreeSet<>();
        List<Method> declared = new java.util.ArrayList<>(List.of(Server.Builder.class.getDeclaredMethods()));
        declared.addAll(List.of(ServerSettings.class.getDeclaredMethods())); // the setters the builder inherits
        for (Method m : declared) {
            boolean returnsBuilder = m.getReturnType() == Server.Builder.class || m.getReturnType() == ServerSettings.class;
            if (Modifier.isPublic(m.getModifiers()) && returnsBuilder
                    && m.getParameterCount() > 0
                    && List.of(m.getParameterTypes()).stream().allMatch(scalar::contains)) {
                methods.add(m.getName());
            }
        }
        Set<String> registry = Settings.ALL.stream().map(Settings.Setting::name).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(methods, registry);
    }

    @Test
    void namesFollowOneRule() {
        assertEquals("PEREGRINE_MAX_BODY_SIZE", Settings.envName("maxBodySize"));
        assertEquals("PEREGRINE_PORT", Settings.envName("port"));
        Settings.Setting s = Settings.ALL.stream().filter(x -> x.name().equals("idleTimeout")).findFirst().orElseThrow();
        assertEquals("peregrine.idleTimeout", s.property());
        assertEquals("PEREGRINE_IDLE_TIMEOUT", s.env());
    }

    @Test
    void valuesParseInEveryDocumentedForm() {
        assertEquals(65536, Settings.parseBytes("64KiB"));
        assertEquals(8L << 20, Settings.parseBytes("8 MiB"));
        assertEquals(1L << 30, Settings.parseBytes("1GiB"));
        assertEquals(123, Settings.parseBytes("123"));
        assertEquals(Duration.ofMillis(250), Settings.parseDuration("250ms"));
        assertEquals(Duration.ofSeconds(10), Settings.parseDuration("10s"));
        assertEquals(Duration.ofMinutes(5), Settings.parseDuration("5m"));
        assertEquals(Duration.ofHours(1), Settings.parseDuration("1h"));
        assertEquals(Duration.ofSeconds(10), Settings.parseDuration("PT10S"));
        for (String bad : new String[] {"", "10", "s", "ten s", "10x", "PT", "-"}) {
            assertThrows(IllegalArgumentException.class, () -> Settings.parseDuration(bad), bad);
        }
        for (String bad : new String[] {"", "KiB", "1.5MiB", "99999999999GiB", "x"}) {
            assertThrows(IllegalArgumentException.class, () -> Settings.parseBytes(bad), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> Settings.parseBoolean("yes"));
    }

    @Test
    void propertyBeatsEnvironmentAndTheBuilderBeatsBoth() {
        Server.Builder b = new Server.Builder(false);
        Properties props = new Properties();
        props.setProperty("peregrine.idleTimeout", "7s");
        props.setProperty("peregrine.execution", "blocking");
        List<String> problems = Settings.apply(b, props, Map.of(
                "PEREGRINE_IDLE_TIMEOUT", "9s", "PEREGRINE_MAX_BODY_SIZE", "1MiB", "PEREGRINE_SHUTDOWN_HOOK", "true",
                "PEREGRINE_HEALTH_ENDPOINTS", "/live, /ready"));
        assertEquals(List.of(), problems);
        assertEquals(7_000, b.idleTimeoutMillis);
        assertEquals(1 << 20, b.maxBodySize);
        assertEquals(Execution.BLOCKING, b.execution);
        assertTrue(b.shutdownHook);
        assertEquals("/live", b.livePath);
        assertEquals("/ready", b.readyPath);
        b.idleTimeout(Duration.ofSeconds(3));
        assertEquals(3_000, b.idleTimeoutMillis, "a builder call after the outside values wins");
    }

    @Test
    void badValuesAreReportedWithSettingSourceAndValue() {
        Properties props = new Properties();
        props.setProperty("peregrine.maxBodySize", "12xyz");
        List<String> problems = Settings.apply(new Server.Builder(false), props,
                Map.of("PEREGRINE_PORT", "70000", "PEREGRINE_HEALTH_ENDPOINTS", "/only-one"));
        assertEquals(3, problems.size(), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.contains("maxBodySize") && p.contains("peregrine.maxBodySize='12xyz'")), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.contains("PEREGRINE_PORT='70000'") && p.contains("port out of range")), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.contains("PEREGRINE_HEALTH_ENDPOINTS='/only-one'")), problems.toString());
    }

    @Test
    void unknownNamesAreListed() {
        Properties props = new Properties();
        props.setProperty("peregrine.maxBodySzie", "1");
        props.setProperty("peregrine.port", "1");
        props.setProperty("other.thing", "1");
        assertEquals(List.of("PEREGRINE_IDEL_TIMEOUT", "peregrine.maxBodySzie"),
                Settings.unknownNames(props, Map.of("PEREGRINE_IDEL_TIMEOUT", "1", "PEREGRINE_PORT", "2", "HOME", "/")));
    }

    @Test
    void startFailsOnABadSystemPropertyNamingIt() {
        System.setProperty("peregrine.headerTimeout", "soon");
        try {
            Server.Builder b = Server.builder().port(0).host("127.0.0.1").threads(1);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, b::start);
            assertTrue(e.getMessage().contains("headerTimeout") && e.getMessage().contains("'soon'"), e.getMessage());
        } finally {
            System.clearProperty("peregrine.headerTimeout");
        }
    }

    /** The real process environment, in a child JVM: PEREGRINE_* reaches the server, the builder wins. */
    public static final class EnvChild {
        public static void main(String[] args) {
            try (Server s = Server.builder().port(0).host("127.0.0.1").threads(1).idleTimeout(Duration.ofSeconds(3)).start()) {
                System.out.println(s.config().maxBodySize() + " " + s.config().idleTimeoutMillis());
            }
        }
    }

    @Test
    void environmentVariablesReachTheServer() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), EnvChild.class.getName());
        pb.environment().put("PEREGRINE_MAX_BODY_SIZE", "64KiB");
        pb.environment().put("PEREGRINE_IDLE_TIMEOUT", "45s");
        pb.environment().put("PEREGRINE_TRANSPORT", "nio");
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertTrue(out.contains("65536 3000"), "child said: " + out);
    }
}
