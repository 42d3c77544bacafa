package dev.peregrine.testing;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP/1.1 response as it came off the wire, read strictly: every line must end in CRLF, the body
 * is framed as RFC 9112 §6.3 says for the cases Peregrine sends.
 *
 * <pre>
 * framing (RFC 9112 §6.3)                        body read
 * ---------------------------------------------  ------------------------------------------
 * answer to HEAD, 1xx, 204, 304                  none
 * Transfer-Encoding: chunked                     chunks decoded, trailers skipped
 * Content-Length: N                              exactly N bytes (fewer: EOFException)
 * neither                                        none (Peregrine always frames; read to the
 *                                                end with RawClient.readToEnd to see more)
 * </pre>
 *
 * Not thread-safe; a value once read.
 */
public final class RawResponse {
    /** The status code. */
    public final int status;
    /** The status line without its CRLF, e.g. {@code HTTP/1.1 200 OK}. */
    public final String statusLine;
    /** The whole head as received, status line to the empty line, CRLFs included. */
    public final String head;
    /** Field values by lower-case name, in arrival order. */
    public final Map<String, List<String>> headers;
    /** The body, de-chunked; empty when the response has none. */
    public final byte[] body;

    private RawResponse(int status, String statusLine, String head, Map<String, List<String>> headers, byte[] body) {
        this.status = status;
        this.statusLine = statusLine;
        this.head = head;
        this.headers = headers;
        this.body = body;
    }

    /** Reads one response from {@code in}; {@code head}: it answers a HEAD request (no body). */
    public static RawResponse read(InputStream in, boolean head) throws IOException {
        StringBuilder raw = new StringBuilder();
        String statusLine = line(in, raw);
        if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12) {
            throw new IOException("not a status line: " + statusLine);
        }
        int status = Integer.parseInt(statusLine.substring(9, 12));
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (String l = line(in, raw); !l.isEmpty(); l = line(in, raw)) {
            int colon = l.indexOf(':');
            if (colon <= 0) {
                throw new IOException("not a field line: " + l);
            }
            headers.computeIfAbsent(l.substring(0, colon).toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                    .add(l.substring(colon + 1).trim());
        }
        byte[] body = new byte[0];
        boolean bodyless = head || status < 200 || status == 204 || status == 304;
        List<String> te = headers.get("transfer-encoding");
        List<String> length = headers.get("content-length");
        if (!bodyless && te != null && te.get(te.size() - 1).toLowerCase(Locale.ROOT).endsWith("chunked")) {
            body = chunks(in);
        } else if (!bodyless && length != null) {
            int n = Integer.parseInt(length.get(0));
            body = in.readNBytes(n);
            if (body.length != n) {
                throw new EOFException("body cut short: " + body.length + " of " + n + " bytes after " + raw);
            }
        }
        return new RawResponse(status, statusLine, raw.toString(), headers, body);
    }

    /** Reads one response from {@code in} that does not answer a HEAD request. */
    public static RawResponse read(InputStream in) throws IOException {
        return read(in, false);
    }

    /**
     * Every response in {@code bytes}, in order; {@code heads[i]} says whether response {@code i}
     * answers a HEAD (missing: no).
     */
    public static List<RawResponse> readAll(byte[] bytes, boolean... heads) throws IOException {
        InputStream in = new ByteArrayInputStream(bytes);
        List<RawResponse> out = new ArrayList<>();
        for (int i = 0; in.available() > 0; i++) {
            out.add(read(in, i < heads.length && heads[i]));
        }
        return out;
    }

    /**
     * Reads a response head alone, status line to the empty line, and returns it as text (CRLFs
     * included): for a test that reads the body itself, e.g. chunk by chunk with {@link #readChunk}.
     */
    public static String readHead(InputStream in) throws IOException {
        StringBuilder raw = new StringBuilder();
        while (!line(in, raw).isEmpty()) {
            // the status line and the field lines, kept in raw
        }
        return raw.toString();
    }

    /**
     * Reads one chunk (RFC 9112 §7.1: size line, extensions ignored, data, CRLF) and returns its data;
     * for the last chunk (size 0) returns an empty array and leaves the trailer section unread.
     */
    public static byte[] readChunk(InputStream in) throws IOException {
        StringBuilder ignored = new StringBuilder();
        String size = line(in, ignored);
        int semi = size.indexOf(';');
        int n = Integer.parseInt((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
        if (n == 0) {
            return new byte[0];
        }
        byte[] data = in.readNBytes(n);
        if (data.length != n) {
            throw new EOFException("chunk cut short: " + data.length + " of " + n + " bytes");
        }
        if (!line(in, ignored).isEmpty()) {
            throw new IOException("chunk data not followed by CRLF");
        }
        return data;
    }

    /** The first value of field {@code name} (any case), or null. */
    public String header(String name) {
        List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
        return v == null ? null : v.get(0);
    }

    /** Every value of field {@code name} (any case), in arrival order; empty for none. */
    public List<String> headers(String name) {
        return headers.getOrDefault(name.toLowerCase(Locale.ROOT), List.of());
    }

    /** The body as UTF-8 text. */
    public String text() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** Head and body as ISO-8859-1 text, as they came (the body de-chunked): for prefix and suffix checks. */
    public String wire() {
        return head + new String(body, StandardCharsets.ISO_8859_1);
    }

    @Override
    public String toString() {
        return statusLine + " " + headers + " body=" + body.length + "B";
    }

    /** A chunked body (RFC 9112 §7.1) de-chunked; the trailer section read and dropped. */
    private static byte[] chunks(InputStream in) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (byte[] chunk = readChunk(in); chunk.length > 0; chunk = readChunk(in)) {
            body.writeBytes(chunk);
        }
        StringBuilder ignored = new StringBuilder();
        while (!line(in, ignored).isEmpty()) {
            // trailer fields: not kept
        }
        return body.toByteArray();
    }

    /** One CRLF-ended line without its CRLF; appends it (with CRLF) to {@code raw}. */
    private static String line(InputStream in, StringBuilder raw) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                throw new EOFException("connection closed " + (raw.length() + line.size() == 0 ? "before a response"
                        : "mid-line: " + raw + line.toString(StandardCharsets.ISO_8859_1)));
            }
            line.write(c);
        }
        byte[] b = line.toByteArray();
        if (b.length == 0 || b[b.length - 1] != '\r') {
            throw new IOException("line not ended by CRLF: " + raw + line.toString(StandardCharsets.ISO_8859_1));
        }
        String s = new String(b, 0, b.length - 1, StandardCharsets.ISO_8859_1);
        raw.append(s).append("\r\n");
        return s;
    }
}
