package dev.peregrine.server;

import dev.peregrine.Server;
import dev.peregrine.ServerConfig;
import dev.peregrine.TestConfigs;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The arithmetic of {@link ConnectionAge}; the behaviour over sockets is {@code e2e.MaxConnectionAgeTest}. */
class ConnectionAgeTest {
    private static ServerConfig config(long ageMillis, long graceMillis, int jitter) {
        return TestConfigs.of(Server.builder().maxConnectionAge(Duration.ofMillis(ageMillis))
                .maxConnectionAgeGrace(Duration.ofMillis(graceMillis)).maxConnectionAgeJitter(jitter));
    }

    @Test
    void offMeansNeverAndTheIdleTimeoutAsItIs() {
        ServerConfig off = TestConfigs.of(Server.builder());
        assertEquals(ConnectionAge.NEVER, ConnectionAge.agedAt(off));
        assertEquals(off.idleTimeoutMillis(), ConnectionAge.idleMillis(off, ConnectionAge.NEVER, 123));
    }

    @Test
    void jitterSpreadsAgesWithinTheBand() {
        ServerConfig c = config(100_000, 0, 10);
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            long before = System.currentTimeMillis();
            long at = ConnectionAge.agedAt(c);
            long after = System.currentTimeMillis();
            assertTrue(at >= before + 90_000 && at <= after + 110_000, "outside +/-10%: " + (at - before));
            seen.add(at - before);
        }
        assertTrue(seen.size() > 100, "jitter should vary ages: " + seen.size() + " distinct");
        long before = System.currentTimeMillis();
        long exact = ConnectionAge.agedAt(config(5_000, 0, 0));
        assertTrue(exact >= before + 5_000 && exact <= System.currentTimeMillis() + 5_000);
    }

    @Test
    void idleEndsAtAgePlusGraceWhenThatComesFirst() {
        ServerConfig c = config(1_000, 500, 0); // idleTimeout 60 s
        long agedAt = 10_000;
        assertEquals(1_500, ConnectionAge.idleMillis(c, agedAt, 9_000)); // retired at 10,500
        assertEquals(0, ConnectionAge.idleMillis(c, agedAt, 11_000)); // already past: at once
        assertEquals(60_000, ConnectionAge.idleMillis(c, agedAt, 10_500 - 70_000)); // idle timeout comes first
    }

    @Test
    void badSettingsThrowAtTheCall() {
        assertThrows(IllegalArgumentException.class, () -> Server.builder().maxConnectionAge(Duration.ofSeconds(-1)));
        assertThrows(IllegalArgumentException.class, () -> Server.builder().maxConnectionAgeGrace(Duration.ofSeconds(-1)));
        assertThrows(IllegalArgumentException.class, () -> Server.builder().maxConnectionAgeJitter(51));
        assertThrows(IllegalArgumentException.class, () -> Server.builder().maxConnectionAgeJitter(-1));
    }
}
