package dev.peregrine.server;

import dev.peregrine.http1.RequestView;
import dev.peregrine.web.AccessLog;

import java.net.InetSocketAddress;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Formats one access-log line ({@link AccessLog.Format}) into a reused {@link StringBuilder}. The time
 * text is rebuilt once a second. Thread: one loop (one instance per loop).
 */
final class AccessLogLine {
    private static final DateTimeFormatter CLF = DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT)
            .withZone(ZoneOffset.UTC);
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final StringBuilder sb = new StringBuilder(256);
    private long clfSecond = Long.MIN_VALUE;
    private String clfTime;

    /**
     * The line for {@code req}, received at {@code nowMillis} (ms since the epoch), answered
     * {@code status} with {@code bytes} of body ({@code -1}: unknown) after {@code durationMicros}.
     */
    String format(AccessLog.Format format, RequestView req, int status, long bytes, long nowMillis, long durationMicros) {
        sb.setLength(0);
        if (format == AccessLog.Format.JSON) {
            json(req, status, bytes, nowMillis, durationMicros);
        } else {
            combined(req, status, bytes, nowMillis, durationMicros);
        }
        return sb.toString();
    }

    private void combined(RequestView req, int status, long bytes, long nowMillis, long durationMicros) {
        sb.append(remote(req)).append(" - - [").append(clfTime(nowMillis)).append("] \"");
        escaped(req.method());
        sb.append(' ');
        target(req, false);
        sb.append(' ').append(req.version()).append("\" ").append(status).append(' ');
        if (bytes < 0) {
            sb.append('-');
        } else {
            sb.append(bytes);
        }
        sb.append(' ');
        quoted(req.headerView("Referer")); // Apache's combined format quotes these two even when missing: "-"
        sb.append(' ');
        quoted(req.headerView("User-Agent"));
        sb.append(' ').append(durationMicros).append(' ');
        quotedOrDash(req.requestId());
    }

    private void json(RequestView req, int status, long bytes, long nowMillis, long durationMicros) {
        sb.append("{\"time\":\"").append(Instant.ofEpochMilli(nowMillis)).append("\",\"remote\":\"").append(remote(req))
                .append("\",\"method\":");
        jsonString(req.method());
        sb.append(",\"target\":\"");
        target(req, true);
        sb.append("\",\"protocol\":\"").append(req.version()).append("\",\"status\":").append(status)
                .append(",\"bytes\":").append(bytes).append(",\"referer\":");
        jsonString(req.headerView("Referer"));
        sb.append(",\"userAgent\":");
        jsonString(req.headerView("User-Agent"));
        sb.append(",\"durationMicros\":").append(durationMicros).append(",\"requestId\":");
        jsonString(req.requestId());
        sb.append('}');
    }

    private static String remote(RequestView req) {
        InetSocketAddress a = req.remoteAddress();
        return a == null || a.getAddress() == null ? "-" : a.getAddress().getHostAddress();
    }

    private String clfTime(long nowMillis) {
        long second = Math.floorDiv(nowMillis, 1000);
        if (second != clfSecond) {
            clfSecond = second;
            clfTime = CLF.format(Instant.ofEpochSecond(second));
        }
        return clfTime;
    }

    /** The request target as sent: path, then {@code ?query} when there is one. */
    private void target(RequestView req, boolean json) {
        if (json) {
            jsonChars(req.pathView());
        } else {
            escaped(req.pathView());
        }
        String q = req.query();
        if (q != null) {
            sb.append('?');
            if (json) {
                jsonChars(q);
            } else {
                escaped(q);
            }
        }
    }

    /** {@code "value"}, or {@code "-"} for a missing one, as Apache's {@code "%{Referer}i"} writes it. */
    private void quoted(CharSequence s) {
        sb.append('"');
        if (s == null) {
            sb.append('-');
        } else {
            escaped(s);
        }
        sb.append('"');
    }

    private void quotedOrDash(CharSequence s) {
        if (s == null) {
            sb.append('-');
            return;
        }
        sb.append('"');
        escaped(s);
        sb.append('"');
    }

    /** Apache's escaping for quoted fields: {@code \"}, {@code \\}, and {@code \xhh} outside printable ASCII. */
    private void escaped(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7E) {
                int b = c & 0xFF;
                sb.append("\\x").append(HEX[b >> 4]).append(HEX[b & 0xF]);
            } else {
                sb.append(c);
            }
        }
    }

    private void jsonString(CharSequence s) {
        if (s == null) {
            sb.append("null");
            return;
        }
        sb.append('"');
        jsonChars(s);
        sb.append('"');
    }

    /** JSON string content (RFC 8259 §7): quote, backslash and controls escaped; other bytes as Latin-1 characters. */
    private void jsonChars(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7F) {
                sb.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
            } else {
                sb.append(c);
            }
        }
    }
}
