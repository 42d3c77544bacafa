package dev.peregrine.h2;

import dev.peregrine.http1.RequestView;

import java.util.Base64;

/**
 * {@code Upgrade: h2c} (RFC 7540 §3.2, which RFC 9113 §3.1 deprecates but the issue keeps): an
 * HTTP/1.1 request without a body, with exactly one {@code HTTP2-Settings} field (the client's
 * SETTINGS payload, base64url) named in {@code Connection}, is answered {@code 101} by the HTTP/1.1
 * server; then the connection speaks HTTP/2, the client's settings apply as if sent in a SETTINGS
 * frame, and the request itself becomes stream 1, half-closed (remote), answered over HTTP/2
 * (§3.2). The client's preface still follows. Any other request declines (null from {@link #of}):
 * the request is answered as HTTP/1.1 (§3.2.1).
 * <pre>
 *   client: GET / HTTP/1.1, Connection: Upgrade, HTTP2-Settings; Upgrade: h2c; HTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA
 *   server: HTTP/1.1 101 Switching Protocols, then SETTINGS, then stream 1's HEADERS and DATA
 *   client: preface, SETTINGS, ...
 * </pre>
 * Thread: the loop thread.
 */
final class Http2Upgrade {
    private final byte[] settings;

    private Http2Upgrade(byte[] settings) {
        this.settings = settings;
    }

    /** The upgrade {@code req} asks for, or null when it does not qualify. */
    static Http2Upgrade of(RequestView req) {
        String value = null;
        for (int i = 0, n = req.headerCount(); i < n; i++) {
            if (req.headerName(i).toString().equalsIgnoreCase("HTTP2-Settings")) {
                if (value != null) {
                    return null; // more than one
                }
                value = req.headerValue(i).toString();
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

    /** The connection now speaks HTTP/2: apply the settings, answer the request as stream 1. */
    void start(Http2Connection conn) {
        for (int at = 0; at < settings.length; at += 6) {
            int id = (settings[at] & 0xff) << 8 | (settings[at + 1] & 0xff);
            int value = (settings[at + 2] & 0xff) << 24 | (settings[at + 3] & 0xff) << 16 | (settings[at + 4] & 0xff) << 8
                    | (settings[at + 5] & 0xff);
            if (!conn.applySetting(id, value)) {
                return;
            }
        }
        conn.lastStreamId = 1;
        Http2Stream s = conn.streams.open(1, conn.peer.initialWindow, conn.settings.initialStreamWindow);
        s.state = Http2Stream.HALF_CLOSED_REMOTE;
        conn.counters.streams++;
        conn.responder.dispatchUpgraded(s);
    }
}
