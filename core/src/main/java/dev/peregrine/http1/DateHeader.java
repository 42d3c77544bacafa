package dev.peregrine.http1;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

/**
 * The {@code Date} field line in IMF-fixdate form (RFC 9110 §5.6.7), e.g.
 * {@code "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"}, rebuilt at most once a second.
 *
 * <p>Thread: one event loop (each loop keeps its own, so nothing is shared).
 */
public final class DateHeader {
    private static final String[] DAYS = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
    private static final String[] MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

    private long second = Long.MIN_VALUE;
    private byte[] line;

    /** The field line for the second containing {@code epochMillis}. */
    public byte[] line(long epochMillis) {
        long s = Math.floorDiv(epochMillis, 1000);
        if (s != second) {
            second = s;
            line = format(s).getBytes(StandardCharsets.US_ASCII);
        }
        return line;
    }

    static String format(long epochSecond) {
        ZonedDateTime t = Instant.ofEpochSecond(epochSecond).atZone(ZoneOffset.UTC);
        return String.format(java.util.Locale.ROOT, "Date: %s, %02d %s %04d %02d:%02d:%02d GMT\r\n",
                DAYS[t.getDayOfWeek().getValue() - 1], t.getDayOfMonth(), MONTHS[t.getMonthValue() - 1],
                t.getYear(), t.getHour(), t.getMinute(), t.getSecond());
    }
}
