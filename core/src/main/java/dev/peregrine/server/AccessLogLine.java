package dev.peregrine.server;

import dev.peregrine.exchange.RequestView;
import dev.peregrine.web.AccessLog;

import java.net.InetSocketAddress;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Formats one access-log line ({@link AccessLog.Format}) into a reused {@link StringBuilder}. The time
 * text is rebuilt once a second. Each field taken from the request (method, target, Referer, User-Agent,
 * request id) contributes at most {@code maxField} characters of escaped text, then {@code ...}: an
 * escape sequence is never split, so a line is bounded whatever the request carried (a header of 0xFF
 * bytes would otherwise be four times as long in the log as on the wire). Thread: one loop (one
 * instance per loop).
 */
final class AccessLogLine {
    private static final DateTimeFormatter CLF = DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT)
            .withZone(ZoneOffset.UTC);
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** Marks a field cut at {@link #maxField}. */
    private static final String CUT = "...";

    private final StringBuilder sb = new StringBuilder(256);
    private final int maxField;
    /** Where the field being written must stop ({@link #field()}). */
    private int fieldEnd;
    private long clfSecond = Long.MIN_VALUE;
    private String clfTime;

    AccessLogLine(int maxField) {
        this.maxField = maxField;
    }

    /** A field from the request begins: it may take {@link #maxField} characters from here. */
    private void field() {
        fieldEnd = sb.length() + maxField;
    }

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
        field();
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
        quoted(req.headers().view("Referer")); // Apache's combined format quotes these two even when missing: "-"
        sb.append(' ');
        quoted(req.headers().view("User-Agent"));
        sb.append(' ').append(durationMicros).append(' ');
        quotedOrDash(req.requestId());
    }

    private void json(RequestView req, int status, long bytes, long nowMillis, long durationMicros) {
        sb.append("{\"time\":\"").append(Instant.ofEpochMilli(nowMillis)).append("\",\"remote\":\"").append(remote(req))
                .append("\",\"method\":");
        field();
        jsonString(req.method());
        sb.append(",\"target\":\"");
        target(req, true);
        sb.append("\",\"protocol\":\"").append(req.version()).append("\",\"status\":").append(status)
                .append(",\"bytes\":").append(bytes).append(",\"referer\":");
        jsonString(req.headers().view("Referer"));
        sb.append(",\"userAgent\":");
        jsonString(req.headers().view("User-Agent"));
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

    /** The request target as sent: path, then {@code ?query} when there is one; one field. */
    private void target(RequestView req, boolean json) {
        field();
        if (json ? !jsonChars(req.pathView()) : !escaped(req.pathView())) {
            return; // cut
        }
        String q = req.rawQuery();
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
            field();
            escaped(s);
        }
        sb.append('"');
    }

    private void quotedOrDash(CharSequence s) {
        if (s == null) {
            sb.append('-');
            return;
        }
        field();
        sb.append('"');
        escaped(s);
        sb.append('"');
    }

    /**
     * Apache's escaping for quoted fields: {@code \"}, {@code \\}, and {@code \xhh} outside printable
     * ASCII. Returns false when the field was cut at its end ({@link #field()}).
     */
    private boolean escaped(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            if (sb.length() >= fieldEnd) {
                sb.append(CUT);
                return false;
            }
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
        return true;
    }

    private void jsonString(CharSequence s) {
        if (s == null) {
            sb.append("null");
            return;
        }
        field();
        sb.append('"');
        jsonChars(s);
        sb.append('"');
    }

    /**
     * JSON string content (RFC 8259 §7): quote, backslash and controls escaped; other bytes as Latin-1
     * characters. Returns false when the field was cut at its end ({@link #field()}).
     */
    private boolean jsonChars(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            if (sb.length() >= fieldEnd) {
                sb.append(CUT);
                return false;
            }
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7F) {
                sb.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
            } else {
                sb.append(c);
            }
        }
        return true;
    }
}
