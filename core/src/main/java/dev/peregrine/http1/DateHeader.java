package dev.peregrine.http1;

import java.nio.charset.StandardCharsets;

/**
 * The {@code Date} field line in IMF-fixdate form (RFC 9110 §5.6.7), e.g.
 * {@code "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"}, rewritten in place at most once a second.
 *
 * <pre>
 *   offset: 0     6    11 14  18   23       32
 *           Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n      (37 bytes)
 * </pre>
 * Rewriting the same array, with the calendar computed by integer arithmetic (days to civil date as
 * in H. Hinnant, "chrono-Compatible Low-Level Date Algorithms"), keeps the refresh allocation-free, so
 * a loop serving requests allocates nothing at all, not even once a second. Years 0–9999.
 *
 * <p>Thread: one event loop (each loop keeps its own, so nothing is shared). The array returned by
 * {@link #line} is this object's and changes on the next refresh.
 */
public final class DateHeader {
    private static final byte[] DAYS = "MonTueWedThuFriSatSun".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MONTHS = "JanFebMarAprMayJunJulAugSepOctNovDec".getBytes(StandardCharsets.US_ASCII);
    private static final int LENGTH = 37;

    private long second = Long.MIN_VALUE;
    private final byte[] line = "Date: Thu, 01 Jan 1970 00:00:00 GMT\r\n".getBytes(StandardCharsets.US_ASCII);

    /** The field line for the second containing {@code epochMillis}; the same array every time. */
    public byte[] line(long epochMillis) {
        long s = Math.floorDiv(epochMillis, 1000);
        if (s != second) {
            second = s;
            write(s, line);
        }
        return line;
    }

    static String format(long epochSecond) {
        byte[] b = new byte[LENGTH];
        write(epochSecond, b);
        return new String(b, StandardCharsets.US_ASCII);
    }

    private static void write(long epochSecond, byte[] b) {
        long days = Math.floorDiv(epochSecond, 86_400);
        int secs = (int) Math.floorMod(epochSecond, 86_400);
        int dow = (int) Math.floorMod(days + 3, 7); // 1970-01-01 was a Thursday; Monday is 0
        long z = days + 719_468;
        long era = Math.floorDiv(z, 146_097);
        long doe = z - era * 146_097;
        long yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        long mp = (5 * doy + 2) / 153;
        int day = (int) (doy - (153 * mp + 2) / 5 + 1);
        int month = (int) (mp < 10 ? mp + 3 : mp - 9);
        int year = (int) (yoe + era * 400 + (month <= 2 ? 1 : 0));

        b[0] = 'D';
        b[1] = 'a';
        b[2] = 't';
        b[3] = 'e';
        b[4] = ':';
        b[5] = ' ';
        System.arraycopy(DAYS, dow * 3, b, 6, 3);
        b[9] = ',';
        b[10] = ' ';
        two(b, 11, day);
        b[13] = ' ';
        System.arraycopy(MONTHS, (month - 1) * 3, b, 14, 3);
        b[17] = ' ';
        two(b, 18, year / 100);
        two(b, 20, year % 100);
        b[22] = ' ';
        two(b, 23, secs / 3600);
        b[25] = ':';
        two(b, 26, secs / 60 % 60);
        b[28] = ':';
        two(b, 29, secs % 60);
        b[31] = ' ';
        b[32] = 'G';
        b[33] = 'M';
        b[34] = 'T';
        b[35] = '\r';
        b[36] = '\n';
    }

    private static void two(byte[] b, int at, int v) {
        b[at] = (byte) ('0' + v / 10);
        b[at + 1] = (byte) ('0' + v % 10);
    }
}
