package dev.peregrine.files;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * A file's validators (RFC 9110 §8.8) and the preconditions that compare them (§13.1): the strong ETag
 * {@code "<size hex>-<mtime ms hex>"}, Last-Modified as an IMF-fixdate, If-Match / If-None-Match lists,
 * the dates of If-Modified-Since / If-Unmodified-Since and If-Range. Pure functions; nothing on the 304
 * path allocates (an If-Modified-Since that is not the exact Last-Modified sent is parsed, which does).
 */
final class Validators {
    /** IMF-fixdate (RFC 9110 §5.6.7): two-digit day, GMT. */
    static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
            .withZone(ZoneOffset.UTC);

    private Validators() {
    }

    /** The strong ETag of a file of {@code size} bytes modified at {@code modifiedMillis}. */
    static String etag(long size, long modifiedMillis) {
        return "\"" + Long.toHexString(size) + "-" + Long.toHexString(modifiedMillis) + "\"";
    }

    /** Last-Modified for {@code modifiedMillis}, whole seconds. */
    static String lastModified(long modifiedMillis) {
        return HTTP_DATE.format(Instant.ofEpochSecond(modifiedMillis / 1000));
    }

    /** If-Match / If-None-Match against {@code etag}: strong comparison, or weak for If-None-Match (RFC 9110 §8.8.3.2). */
    static boolean matches(CharSequence header, String etag, boolean weak) {
        int n = header.length();
        for (int start = 0; start <= n; ) {
            int end = start;
            while (end < n && header.charAt(end) != ',') {
                end++;
            }
            int from = start;
            int to = end;
            while (from < to && header.charAt(from) <= ' ') {
                from++;
            }
            while (to > from && header.charAt(to - 1) <= ' ') {
                to--;
            }
            if (to - from == 1 && header.charAt(from) == '*' && start == 0 && end == n) {
                return true; // "*" alone: any current representation
            }
            if (to - from > 2 && header.charAt(from) == 'W' && header.charAt(from + 1) == '/') {
                from = weak ? from + 2 : to; // a weak tag never matches strongly
            }
            if (to - from == etag.length() && regionEquals(header, from, etag)) {
                return true;
            }
            start = end + 1;
        }
        return false;
    }

    private static boolean regionEquals(CharSequence s, int from, String t) {
        for (int i = 0; i < t.length(); i++) {
            if (s.charAt(from + i) != t.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    static boolean modifiedAfter(String date, long modifiedSeconds) {
        Long since = parseDate(date);
        return since != null && modifiedSeconds > since;
    }

    /**
     * If-Modified-Since: the date we sent as Last-Modified (what a cache echoes) is compared as it is,
     * without parsing; any other date is parsed.
     */
    static boolean notModifiedSince(CharSequence date, String lastModified, long modifiedSeconds) {
        if (date == null) {
            return false;
        }
        if (date.length() == lastModified.length() && regionEquals(date, 0, lastModified)) {
            return true;
        }
        Long since = parseDate(date.toString());
        return since != null && modifiedSeconds <= since;
    }

    /** If-Range (RFC 9110 §13.1.5): absent, or a strong ETag equal to ours, or exactly our Last-Modified. */
    static boolean ifRangeHolds(String ifRange, String etag, String lastModified) {
        if (ifRange == null) {
            return true;
        }
        String v = ifRange.trim();
        return v.startsWith("\"") ? v.equals(etag) : v.equals(lastModified);
    }

    /** An IMF-fixdate as epoch seconds, or null when it is not one (then the condition is ignored). */
    static Long parseDate(String s) {
        if (s == null) {
            return null;
        }
        try {
            return ZonedDateTime.parse(s.trim(), HTTP_DATE).toEpochSecond();
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
