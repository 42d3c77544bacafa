package dev.peregrine.client;

import dev.peregrine.loop.Connection;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Encodes a {@link ClientRequest} into a connection's batch (RFC 9112 §3): request line, {@code Host}
 * (with the port unless it is the scheme's), the caller's fields, {@code User-Agent} unless given,
 * {@code Content-Length} for a body (and for an empty POST, PUT or PATCH), then the body; for a
 * streamed body only the head, with its {@code Content-Length} or {@code Transfer-Encoding: chunked}
 * ({@link RequestBodyPump} sends the body).
 *
 * <p>Thread: the connection's loop thread. The batch is the loop's shared write buffer, so the caller
 * writes it ({@link Connection#flush}) before its event ends.
 */
final class RequestWriter {
    private RequestWriter() {
    }

    static void write(Connection c, ClientRequest r) {
        put(c, r.wireHead());
        byte[] body = r.body();
        if (body != null) {
            put(c, body);
        }
    }

    /** The request's head as it goes on the wire; built once per (immutable) request. */
    static byte[] head(ClientRequest r) {
        StringBuilder h = new StringBuilder(128);
        h.append(r.method()).append(' ').append(r.target()).append(" HTTP/1.1\r\nHost: ").append(r.uri().getHost());
        int port = r.port();
        if (port != (r.https() ? 443 : 80)) {
            h.append(':').append(port);
        }
        h.append("\r\n");
        boolean ua = false;
        for (String[] kv : r.headers()) {
            h.append(kv[0]).append(": ").append(kv[1]).append("\r\n");
            ua |= kv[0].equalsIgnoreCase("User-Agent");
        }
        if (!ua) {
            h.append("User-Agent: Peregrine\r\n");
        }
        byte[] body = r.body();
        if (r.producer() != null) {
            h.append(r.producedLength() < 0 ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + r.producedLength() + "\r\n");
        } else if (body != null || r.method().equals("POST") || r.method().equals("PUT") || r.method().equals("PATCH")) {
            h.append("Content-Length: ").append(body == null ? 0 : body.length).append("\r\n");
        }
        h.append("\r\n");
        return h.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Appends to the batch, writing it whenever the loop's write buffer fills. */
    private static void put(Connection c, byte[] bytes) {
        int off = 0;
        while (off < bytes.length) {
            ByteBuffer out = c.out();
            if (!out.hasRemaining()) {
                c.flushBatch();
                if (!c.isOpen()) {
                    return;
                }
                continue;
            }
            int n = Math.min(out.remaining(), bytes.length - off);
            out.put(bytes, off, n);
            off += n;
        }
    }
}
