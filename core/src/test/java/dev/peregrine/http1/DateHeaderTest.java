package dev.peregrine.http1;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link DateHeader}: IMF-fixdate exactly as java.time writes it, rewritten in place without allocating. */
class DateHeaderTest {
    private static final DateTimeFormatter IMF = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    private static String expected(long second) {
        return "Date: " + IMF.format(Instant.ofEpochSecond(second)) + "\r\n";
    }

    @Test
    void matchesJavaTimeOverFourCenturies() {
        long[] fixed = {0, -1, 784_111_777L, 951_782_400L /* 2000-02-29 */, 4_107_542_400L /* 2100-03-01 */,
            -2_208_988_800L /* 1900-01-01 */, 253_402_300_799L /* 9999-12-31 23:59:59 */, 1_795_328_926L};
        for (long s : fixed) {
            assertEquals(expected(s), DateHeader.format(s), "second " + s);
        }
        SplittableRandom rnd = new SplittableRandom(1);
        for (int i = 0; i < 200_000; i++) {
            long s = rnd.nextLong(-2_208_988_800L, 10_000_000_000L);
            assertEquals(expected(s), DateHeader.format(s), "second " + s);
        }
    }

    @Test
    void rewritesOneArrayOncePerSecondWithoutAllocating() {
        DateHeader d = new DateHeader();
        long t = 1_795_328_926_000L;
        byte[] first = d.line(t);
        assertEquals(expected(t / 1000), new String(first, StandardCharsets.US_ASCII));
        assertSame(first, d.line(t + 999));
        long allocated = dev.peregrine.testing.AllocationMeter.leastAllocated(3, () -> {
            for (int i = 0; i < 20_000; i++) {
                d.line(t + i * 1000L);
            }
        });
        assertTrue(allocated < 1024, "allocated " + allocated + " bytes for 20,000 refreshes");
        assertEquals(expected(t / 1000 + 19_999), new String(d.line(t + 19_999_000L), StandardCharsets.US_ASCII));
    }
}
