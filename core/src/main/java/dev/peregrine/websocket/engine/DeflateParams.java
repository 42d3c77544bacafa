package dev.peregrine.websocket.engine;

import java.util.Locale;

/**
 * permessage-deflate negotiation (RFC 7692 §7.1): picks the first offer in {@code Sec-WebSocket-Extensions}
 * the server can honour and says what the response carries.
 * <pre>
 *   parameter                       offered by the client means           the server
 *   server_no_context_takeover      reset our compressor per message      accepts, echoes, resets its Deflater
 *   client_no_context_takeover      the client resets its own             accepts, echoes (nothing to do)
 *   server_max_window_bits=N        our LZ77 window at most 2^N           accepts and echoes N (§7.1.2.1). For
 *                                                                         N &lt; 15 it honours it by sending its
 *                                                                         messages uncompressed: java.util.zip's
 *                                                                         Deflater cannot choose a smaller window,
 *                                                                         and RSV1 is chosen per message (§6), so
 *                                                                         an uncompressed message always conforms;
 *                                                                         the client's messages are still inflated
 *   client_max_window_bits[=N]      the client may use a smaller window   accepts: our Inflater reads any
 *                                                                         window up to 15; not echoed, so the
 *                                                                         client may use up to its N (§7.1.2.2)
 * </pre>
 * An offer with an unknown parameter, a duplicate, or a bad value is declined (§7.1); the next one is
 * tried.
 *
 * <p>The client side ({@link #CLIENT_OFFER}, {@link #fromResponse}): the client offers
 * {@code permessage-deflate; client_max_window_bits} (it can inflate any window, and says the server
 * may limit its own). It reads the server's answer as the same table seen from the other end: with
 * {@code client_no_context_takeover} it resets its compressor per message, with
 * {@code client_max_window_bits=N}, N &lt; 15, it sends its messages uncompressed (the same reason as
 * above), {@code server_max_window_bits} and {@code server_no_context_takeover} need nothing of its
 * Inflater. An answer it cannot accept (another extension, an unknown or duplicate parameter, a bad
 * value) fails the handshake (§7.1: the client must fail the connection).
 *
 * <p>Immutable result; thread: any.
 */
final class DeflateParams {
    final boolean serverNoContextTakeover;
    final boolean clientNoContextTakeover;
    /** Whether the server compresses what it sends: not when the client limited our window below 15 bits. */
    final boolean serverCompresses;
    /** Whether the client compresses what it sends: not when the server limited its window below 15 bits. */
    final boolean clientCompresses;
    /** What a client offers in {@code Sec-WebSocket-Extensions}. */
    static final String CLIENT_OFFER = "permessage-deflate; client_max_window_bits";
    /** The {@code Sec-WebSocket-Extensions} value of the response. */
    final String response;

    private DeflateParams(boolean serverNoContextTakeover, boolean clientNoContextTakeover, boolean serverCompresses,
                          boolean clientCompresses, String response) {
        this.serverNoContextTakeover = serverNoContextTakeover;
        this.clientNoContextTakeover = clientNoContextTakeover;
        this.serverCompresses = serverCompresses;
        this.clientCompresses = clientCompresses;
        this.response = response;
    }

    /**
     * The client's reading of the server's {@code Sec-WebSocket-Extensions} answer to {@link #CLIENT_OFFER}:
     * null when the server declined (no header); IllegalArgumentException saying why when the answer
     * cannot be accepted.
     */
    static DeflateParams fromResponse(String header) {
        if (header == null || header.trim().isEmpty()) {
            return null;
        }
        if (header.indexOf(',') >= 0) {
            throw new IllegalArgumentException("the server accepted more than one extension: " + header);
        }
        String[] parts = header.split(";");
        if (!parts[0].trim().equalsIgnoreCase("permessage-deflate")) {
            throw new IllegalArgumentException("the server accepted an extension that was not offered: " + header);
        }
        boolean serverNoTakeover = false;
        boolean clientNoTakeover = false;
        int serverBits = 0;
        int clientBits = 0;
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].trim();
            int eq = p.indexOf('=');
            String name = (eq < 0 ? p : p.substring(0, eq)).trim().toLowerCase(Locale.ROOT);
            String value = eq < 0 ? null : unquote(p.substring(eq + 1).trim());
            boolean ok;
            switch (name) {
                case "server_no_context_takeover":
                    ok = !serverNoTakeover && value == null;
                    serverNoTakeover = true;
                    break;
                case "client_no_context_takeover":
                    ok = !clientNoTakeover && value == null;
                    clientNoTakeover = true;
                    break;
                case "server_max_window_bits":
                    ok = serverBits == 0 && windowBits(value) > 0;
                    serverBits = windowBits(value);
                    break;
                case "client_max_window_bits":
                    ok = clientBits == 0 && windowBits(value) > 0; // §7.1.2.2: the answer carries a value
                    clientBits = windowBits(value);
                    break;
                default:
                    ok = false;
            }
            if (!ok) {
                throw new IllegalArgumentException("unacceptable permessage-deflate answer: " + header);
            }
        }
        return new DeflateParams(serverNoTakeover, clientNoTakeover, false, clientBits == 0 || clientBits == 15, null);
    }

    /** The accepted parameters, or null when no permessage-deflate offer can be honoured (or none was made). */
    static DeflateParams negotiate(String header) {
        if (header == null) {
            return null;
        }
        for (String offer : header.split(",")) {
            DeflateParams p = accept(offer);
            if (p != null) {
                return p;
            }
        }
        return null;
    }

    private static DeflateParams accept(String offer) {
        String[] parts = offer.split(";");
        if (!parts[0].trim().equalsIgnoreCase("permessage-deflate")) {
            return null;
        }
        boolean serverNoTakeover = false;
        boolean clientNoTakeover = false;
        int serverBits = 0;
        boolean clientBits = false;
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].trim();
            int eq = p.indexOf('=');
            String name = (eq < 0 ? p : p.substring(0, eq)).trim().toLowerCase(Locale.ROOT);
            String value = eq < 0 ? null : unquote(p.substring(eq + 1).trim());
            switch (name) {
                case "server_no_context_takeover":
                    if (serverNoTakeover || value != null) {
                        return null;
                    }
                    serverNoTakeover = true;
                    break;
                case "client_no_context_takeover":
                    if (clientNoTakeover || value != null) {
                        return null;
                    }
                    clientNoTakeover = true;
                    break;
                case "server_max_window_bits":
                    if (serverBits != 0 || windowBits(value) < 0) {
                        return null; // a duplicate, or no value / a bad one: malformed (§7.1.2.1)
                    }
                    serverBits = windowBits(value);
                    break;
                case "client_max_window_bits":
                    if (clientBits || (value != null && windowBits(value) < 0)) {
                        return null;
                    }
                    clientBits = true;
                    break;
                default:
                    return null;
            }
        }
        StringBuilder r = new StringBuilder("permessage-deflate");
        if (serverNoTakeover) {
            r.append("; server_no_context_takeover");
        }
        if (clientNoTakeover) {
            r.append("; client_no_context_takeover");
        }
        if (serverBits != 0) {
            r.append("; server_max_window_bits=").append(serverBits);
        }
        return new DeflateParams(serverNoTakeover, clientNoTakeover, serverBits == 0 || serverBits == 15, true, r.toString());
    }

    private static String unquote(String v) {
        return v.length() >= 2 && v.charAt(0) == '"' && v.charAt(v.length() - 1) == '"' ? v.substring(1, v.length() - 1) : v;
    }

    /** 8..15, or -1 when {@code v} is not a window size (§7.1.2.1: 1*DIGIT, 8 to 15, no leading zero). */
    private static int windowBits(String v) {
        if (v == null || v.isEmpty() || v.length() > 2 || v.charAt(0) == '0') {
            return -1;
        }
        int n = 0;
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n >= 8 && n <= 15 ? n : -1;
    }
}
