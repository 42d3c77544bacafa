package dev.peregrine;

import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The API reaches its implementation through {@link ServerEngine}, found once with ServiceLoader:
 * core declares it, a bad use of the SPI fails at the call, and the API's values hold what the engine
 * gives them.
 */
class ServerEngineTest {
    @Test
    void coreDeclaresTheEngineAndTheApiFindsItOnce() throws Exception {
        try (InputStream in = ServerEngine.class.getResourceAsStream("/META-INF/services/dev.peregrine.ServerEngine")) {
            assertTrue(in != null, "core's jar declares the engine");
            assertEquals("dev.peregrine.server.Engine", new String(in.readAllBytes(), StandardCharsets.UTF_8).trim());
        }
        assertEquals("dev.peregrine.server.Engine", ServerEngine.get().getClass().getName());
        assertSame(ServerEngine.get(), ServerEngine.get());
    }

    @Test
    void aBadRouteFailsAtItsRegistrationAsTheRouterWould() {
        Server.Builder b = Server.builder();
        b.get("/a", (req, res) -> res.text("a"));
        assertThrows(IllegalArgumentException.class, () -> b.get("/a", (req, res) -> res.text("again")));
        assertThrows(IllegalArgumentException.class, () -> b.get("no-slash", (req, res) -> res.text("x")));
    }

    @Test
    void teleportWithoutItsModuleFailsAtTheCall() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Server.builder().teleport(0));
        assertTrue(e.getMessage().contains("peregrine-teleport"), e.getMessage());
        Server.builder().teleport(-1); // none: nothing to find
    }

    @Test
    void anExtensionKeptOnTheBuilderReachesThePlan() {
        Server.Builder b = Server.builder().port(0);
        assertEquals(null, ServerEngine.extension(b, String.class));
        ServerEngine.extension(b, String.class, "kept");
        assertEquals("kept", ServerEngine.extension(b, String.class));
        assertEquals("kept", b.plan().extension(String.class));
    }

    @Test
    void countsOfTheWrongShapeAreRefused() {
        ServerEngine.Counts good = new ServerEngine.Counts(new long[Metrics.LOOP_COUNTS], new long[600],
                new long[2 + Metrics.HTTP2_DEFENCES.size()], new double[] {0.1}, List.of(
                new ServerEngine.DurationSeries("/a", "GET", 200, new long[] {2, 1}, 5_000_000)));
        Metrics m = good.metrics();
        assertEquals(3, m.requestDurationCount("/a", "GET", 200));
        assertEquals(0, m.requestDurationCount("/a", "GET", 404));
        assertThrows(IllegalArgumentException.class, () -> new ServerEngine.Counts(new long[3], new long[600],
                new long[2 + Metrics.HTTP2_DEFENCES.size()], new double[0], List.of()).metrics());
        assertThrows(IllegalArgumentException.class, () -> new ServerEngine.Counts(new long[Metrics.LOOP_COUNTS],
                new long[600], new long[2], new double[0], List.of()).metrics());
    }
}
