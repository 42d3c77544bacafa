package dev.peregrine.h2;

import dev.peregrine.exchange.RequestView;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Locale;

/**
 * {@code Upgrade: h2c} (RFC 7540 §3.2, which RFC 9113 §3.1 deprecates but the issue keeps): an
 * HTTP/1.1 request without a body, with exactly one {@code HTTP2-Settings} field (the client's
 * SETTINGS payload, base64url) named in {@code Connection}, is answered {@code 101} by the HTTP/1.1
 * server; then the connection speaks HTTP/2, the client's settings apply as if sent in a SETTINGS
 * frame, and the request itself becomes stream 1, half-closed (remote), answered over HTTP/2
 * (§3.2). Any other request declines (null from {@link #of}): the request is answered as HTTP/1.1
 * (§3.2.1).
 * <pre>
 *   client: GET / HTTP/1.1, Connection: Upgrade, HTTP2-Settings; Upgrade: h2c; HTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA
 *   server: HTTP/1.1 101 Switching Protocols, then SETTINGS (+ WINDOW_UPDATE on 0)      (nothing more yet)
 *   client: preface, SETTINGS, ...
 *   server: (stream 1 dispatched now) SETTINGS ACK ..., stream 1's HEADERS and DATA
 * </pre>
 * <b>Stream 1 waits for the client's preface.</b> The request is laid out as a stream's fields
 * ({@link RequestHeaders}' layout: {@code :method}, {@code :path}, the authority as {@code host},
 * the other fields with lowercase names, less the connection-specific ones, RFC 9113 §8.2.2) in a
 * pooled buffer of stream 1, and dispatched only once the client's connection preface has arrived
 * ({@link Http2Connection#onInput}); until then the server has sent the 101 and its own preface
 * alone, about 120 bytes. RFC 7540 §3.2 lets the server answer at once, but a client switching its
 * reader from HTTP/1.1 to HTTP/2 may lose what arrives with the 101: the JDK HttpClient (17 and 25)
 * takes over as HTTP/2 only the first buffer (16 KiB) of the read that carried the 101, and drops
 * the rest of that read, so a large answer sent at once reached it misaligned. A client sends
 * nothing after its preface that depends on stream 1's answer, so the wait costs one round trip at
 * most; and a client that never completes the switch runs no handler. The request then reads as any
 * stream's ({@code req.version()} is {@code HTTP/2.0}).
 *
 * <p>Thread: the loop thread.
 */
final class Http2Upgrade {
    /** The longest name, value or target a field record ({@link RequestHeaders}) holds. */
    private static final int MAX_FIELD = 0xffff;
    private final byte[] settings;

    private Http2Upgrade(byte[] settings) {
        this.settings = settings;
    }

    /** The upgrade {@code req} asks for, or null when it does not qualify. */
    static Http2Upgrade of(RequestView req) {
        String value = null;
        String query = req.rawQuery();
        if (req.pathView().length() + (query == null ? 0 : 1 + query.length()) > MAX_FIELD) {
            return null;
        }
        dev.peregrine.Headers fields = req.headers();
        for (int i = 0, n = fields.size(); i < n; i++) {
            if (fields.name(i).length() > MAX_FIELD || fields.value(i).length() > MAX_FIELD) {
                return null; // longer than a stream's field record holds (a maxHeadSize above 64 KiB): stays HTTP/1.1
            }
            if (fields.name(i).toString().equalsIgnoreCase("HTTP2-Settings")) {
                if (value != null) {
                    return null; // more than one
                }
                value = fields.value(i).toString();
            }
        }
        String connection = req.header("Connection");
        if (value == null || connection == null || !hasToken(connection, "HTTP2-Settings")) {
            return null;
        }
        byte[] payload;
        try {
            payload = Base64.getUrlDecoder().decode(value.trim());
        } catch (IllegalArgumentException e) {
            return null;
        }
        return payload.length % 6 == 0 ? new Http2Upgrade(payload) : null;
    }

    private static boolean hasToken(String list, String token) {
        for (String t : list.split(",")) {
            if (t.trim().equalsIgnoreCase(token)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The connection now speaks HTTP/2 (called from its {@code onOpen}, while the loop's request view
     * still holds the upgraded request): applies the settings and opens stream 1 holding the request,
     * to be dispatched once the client's preface is in ({@link #prefaceIn}).
     */
    void start(Http2Connection conn) {
        for (int at = 0; at < settings.length; at += 6) {
            int id = (settings[at] & 0xff) << 8 | (settings[at + 1] & 0xff);
            int value = (settings[at + 2] & 0xff) << 24 | (settings[at + 3] & 0xff) << 16 | (settings[at + 4] & 0xff) << 8
                    | (settings[at + 5] & 0xff);
            if (!conn.applySetting(id, value)) {
                return; // a connection error: nothing is dispatched
            }
        }
        RequestView req = conn.dispatch().request();
        conn.lastStreamId = 1;
        Http2Stream s = conn.streams.open(conn, 1, conn.peerInitialWindow, conn.settings.initialStreamWindow);
        s.state = Http2Stream.HALF_CLOSED_REMOTE;
        s.declaredLength = req.contentLength(); // -1 or 0: a request with a body is not upgraded
        String connection = req.header("Connection");
        int size = layOut(req, connection, null);
        s.request = conn.pool().acquire(size);
        s.headEnd = layOut(req, connection, s.request);
        conn.shared.counters.streams++;
    }

    /** The client's preface is in: stream 1's request goes to its handler, unless the client reset it meanwhile. */
    void prefaceIn(Http2Connection conn) {
        Http2Stream s = conn.streams.get(1);
        if (s != null && s.request != null) {
            BodyFeed.complete(conn, s);
        }
    }

    /**
     * Writes {@code req}'s fields into {@code dst} from 0 in {@link RequestHeaders}' layout (or only
     * counts them, {@code dst} null); returns the bytes they take.
     */
    static int layOut(RequestView req, String connection, ByteBuffer dst) {
        int p = record(dst, 0, RequestHeaders.METHOD, ":method", req.method());
        String query = req.rawQuery();
        CharSequence path = req.isAsteriskForm() ? "*" : req.pathView();
        p = record(dst, p, RequestHeaders.PATH, ":path", query == null ? path : path + "?" + query);
        String authority = req.host();
        if (authority != null) {
            p = record(dst, p, RequestHeaders.AUTHORITY, "host", authority); // RFC 9113 §8.3.1: :authority, not Host
        }
        dev.peregrine.Headers fields = req.headers();
        for (int i = 0, n = fields.size(); i < n; i++) {
            String name = fields.name(i).toString().toLowerCase(Locale.ROOT); // §8.2.1: lowercase names
            if (!hopByHop(name, connection)) {
                p = record(dst, p, RequestHeaders.REGULAR, name, fields.value(i));
            }
        }
        return p;
    }

    /**
     * Fields of the HTTP/1.1 hop that an HTTP/2 request does not carry (RFC 9113 §8.2.2): the
     * connection-specific ones, the upgrade's own, those {@code Connection} names (RFC 9110 §7.6.1),
     * and Host, which the authority stands for.
     */
    private static boolean hopByHop(String name, String connection) {
        switch (name) {
            case "host":
            case "connection":
            case "keep-alive":
            case "proxy-connection":
            case "transfer-encoding":
            case "upgrade":
            case "http2-settings":
                return true;
            default:
                return connection != null && hasToken(connection, name);
        }
    }

    /** One field's record: {@code [kind][name length][value offset][value length] name value}. */
    private static int record(ByteBuffer dst, int p, int kind, CharSequence name, CharSequence value) {
        int n = name.length();
        int v = value.length();
        if (dst != null) {
            dst.put(p, (byte) kind);
            putShort(dst, p + 1, n);
            putShort(dst, p + 3, n); // the value follows the name
            putShort(dst, p + 5, v);
            int at = p + RequestHeaders.PREFIX;
            for (int i = 0; i < n; i++) {
                dst.put(at + i, (byte) name.charAt(i));
            }
            at += n;
            for (int i = 0; i < v; i++) {
                dst.put(at + i, (byte) value.charAt(i)); // ISO-8859-1, as the HTTP/1.1 view reads it
            }
        }
        return p + RequestHeaders.PREFIX + n + v;
    }

    private static void putShort(ByteBuffer b, int at, int v) {
        b.put(at, (byte) (v >>> 8));
        b.put(at + 1, (byte) v);
    }
}
