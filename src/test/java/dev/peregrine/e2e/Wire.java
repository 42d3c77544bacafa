package dev.peregrine.e2e;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Raw-socket helpers: connect, write wire bytes, read and parse responses. */
final class Wire {
    /** Read timeout: a generous bound so a hang fails the test instead of the build. */
    static final int READ_TIMEOUT_MS = 20_000;

    private Wire() {
    }

    static Socket connect(int port) throws IOException {
        Socket s = new Socket();
        s.setTcpNoDelay(true);
        s.setSoTimeout(READ_TIMEOUT_MS);
        s.connect(new InetSocketAddress("127.0.0.1", port), READ_TIMEOUT_MS);
        return s;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** One parsed response. */
    static final class Response {
        final int status;
        final String statusLine;
        final Map<String, List<String>> headers = new LinkedHashMap<>();
        byte[] body = new byte[0];

        Response(String statusLine) {
            this.statusLine = statusLine;
            this.status = Integer.parseInt(statusLine.substring(9, 12));
        }

        String header(String name) {
            List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
            return v == null ? null : v.get(0);
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return statusLine + " " + headers + " body=" + body.length + "B";
        }
    }

    /** Reads one response; the body is read by Content-Length unless {@code head} or the status has none. */
    static Response read(InputStream in, boolean head) throws IOException {
        String line = readLine(in);
        if (!line.startsWith("HTTP/1.1 ")) {
            throw new IOException("not a status line: " + line);
        }
        Response r = new Response(line);
        while (!(line = readLine(in)).isEmpty()) {
            int colon = line.indexOf(':');
            r.headers.computeIfAbsent(line.substring(0, colon).toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                    .add(line.substring(colon + 1).trim());
        }
        String length = r.header("Content-Length");
        if (!head && length != null && r.status >= 200 && r.status != 204 && r.status != 304) {
            r.body = in.readNBytes(Integer.parseInt(length));
            if (r.body.length != Integer.parseInt(length)) {
                throw new EOFException("body cut short: " + r.body.length + " of " + length);
            }
        }
        return r;
    }

    static Response read(InputStream in) throws IOException {
        return read(in, false);
    }

    /** Parses every response in {@code bytes}; {@code heads[i]} tells whether response i answers a HEAD. */
    static List<Response> readAll(byte[] bytes, boolean... heads) throws IOException {
        InputStream in = new ByteArrayInputStream(bytes);
        List<Response> out = new ArrayList<>();
        int i = 0;
        while (in.available() > 0) {
            out.add(read(in, i < heads.length && heads[i]));
            i++;
        }
        return out;
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                throw new EOFException("connection closed mid-line: " + line);
            }
            line.write(c);
        }
        byte[] b = line.toByteArray();
        if (b.length == 0 || b[b.length - 1] != '\r') {
            throw new IOException("line not ended by CRLF: " + line);
        }
        return new String(b, 0, b.length - 1, StandardCharsets.ISO_8859_1);
    }
}
