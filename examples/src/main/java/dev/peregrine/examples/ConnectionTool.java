package dev.peregrine.examples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The client side of {@code scripts/census} and {@code scripts/soak}.
 *
 * <pre>
 *   census PORT K ADDRESSES [h2]   open K keep-alive connections from 127.0.0.1..127.0.0.ADDRESSES, one
 *                             request each, print "OPEN n"; on the stdin line "check" send one more
 *                             request on every connection and print "SERVED s OF n"; on "close" (or
 *                             end of input) close them all. With h2 each connection speaks h2c by prior
 *                             knowledge (preface, SETTINGS, one stream per request, SETTINGS acknowledged)
 *   churn PORT SECONDS        for SECONDS: connect, one request, close; every 8th connection sends a
 *                             malformed request instead and must get a 4xx and a close; prints
 *                             "CHURN connections=.. malformed=.. errors=.."
 * </pre>
 * Blocking sockets, one thread: simple, and fast enough on loopback.
 */
public final class ConnectionTool {
    private static final byte[] GET = ascii("GET /plaintext HTTP/1.1\r\nHost: census\r\n\r\n");
    private static final String[] MALFORMED = {
        "GET /plaintext HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n",
        "GET /plaintext HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
        "GET /plaintext HTTP/9.9\r\nHost: x\r\n\r\n",
        "GET /plaintext HTTP/1.1\nHost: x\n\n",
        "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "\u0000\u0001\u0002 garbage \r\n\r\n",
        "GET /" + "a".repeat(10_000) + " HTTP/1.1\r\nHost: x\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n",
    };

    private ConnectionTool() {
    }

    public static void main(String[] args) throws Exception {
        if ((args.length == 4 || args.length == 5 && args[4].equals("h2")) && args[0].equals("census")) {
            census(Integer.parseInt(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]), args.length == 5);
        } else if (args.length == 3 && args[0].equals("churn")) {
            churn(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
        } else {
            System.err.println("usage: ConnectionTool census PORT K ADDRESSES [h2] | churn PORT SECONDS");
            System.exit(2);
        }
    }

    private static void census(int port, int k, int addresses, boolean h2) throws IOException {
        List<SocketChannel> open = new ArrayList<>(k);
        java.util.Map<SocketChannel, H2Census> streams = new java.util.HashMap<>();
        ByteBuffer buf = ByteBuffer.allocate(4096);
        InetSocketAddress server = new InetSocketAddress("127.0.0.1", port);
        String stopped = null;
        for (int i = 0; i < k; i++) {
            SocketChannel ch = null;
            try {
                ch = SocketChannel.open();
                ch.bind(new InetSocketAddress("127.0.0." + (1 + i % addresses), 0));
                ch.connect(server);
                if (h2) {
                    streams.put(ch, new H2Census(ch));
                }
                if (!(h2 ? streams.get(ch).exchange(buf) : exchange(ch, buf))) {
                    throw new IOException("no response");
                }
                open.add(ch);
            } catch (IOException e) {
                stopped = e.getMessage();
                if (ch != null) {
                    ch.close();
                }
                break;
            }
            if ((i + 1) % 5000 == 0) {
                System.out.println("opened " + (i + 1));
            }
        }
        if (stopped != null) {
            System.out.println("stopped opening at " + open.size() + ": " + stopped);
        }
        System.out.println("OPEN " + open.size());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        String line;
        while ((line = in.readLine()) != null && !line.equals("close")) {
            if (line.equals("check")) {
                int served = 0;
                for (SocketChannel ch : open) {
                    try {
                        if (h2 ? streams.get(ch).exchange(buf) : exchange(ch, buf)) {
                            served++;
                        }
                    } catch (IOException e) {
                        // counted as not served
                    }
                }
                System.out.println("SERVED " + served + " OF " + open.size());
                System.out.flush();
            }
        }
        for (SocketChannel ch : open) {
            ch.close();
        }
    }

    /** Sends one GET /plaintext and reads its response; false if the connection ended first. */
    private static boolean exchange(SocketChannel ch, ByteBuffer buf) throws IOException {
        ch.write(ByteBuffer.wrap(GET));
        buf.clear();
        while (true) {
            if (ch.read(buf) < 0) {
                return false;
            }
            String text = new String(buf.array(), 0, buf.position(), StandardCharsets.ISO_8859_1);
            if (text.endsWith("Hello, World!")) {
                return text.startsWith("HTTP/1.1 200 ");
            }
            if (!buf.hasRemaining()) {
                return false;
            }
        }
    }

    private static void churn(int port, int seconds) throws IOException {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long connections = 0;
        long malformed = 0;
        long errors = 0;
        ByteBuffer buf = ByteBuffer.allocate(4096);
        InetSocketAddress server = new InetSocketAddress("127.0.0.1", port);
        while (System.nanoTime() - end < 0) {
            connections++;
            try (SocketChannel ch = SocketChannel.open(server)) {
                if (connections % 8 == 0) {
                    malformed++;
                    String bad = MALFORMED[(int) (connections / 8 % MALFORMED.length)];
                    ch.write(ByteBuffer.wrap(bad.getBytes(StandardCharsets.ISO_8859_1)));
                    if (!rejectedAndClosed(ch, buf)) {
                        errors++;
                    }
                } else if (!exchange(ch, buf)) {
                    errors++;
                }
            } catch (IOException e) {
                errors++;
            }
        }
        System.out.println("CHURN connections=" + connections + " malformed=" + malformed + " errors=" + errors);
    }

    /** Reads to the server's close; true if what came was one 4xx/5xx response. */
    private static boolean rejectedAndClosed(SocketChannel ch, ByteBuffer buf) throws IOException {
        buf.clear();
        try {
            while (ch.read(buf) >= 0) {
                if (!buf.hasRemaining()) {
                    buf.clear();
                }
            }
        } catch (IOException e) {
            // a reset after the response still counts when the response arrived
        }
        String text = new String(buf.array(), 0, buf.position(), StandardCharsets.ISO_8859_1);
        return text.startsWith("HTTP/1.1 4") || text.startsWith("HTTP/1.1 5");
    }

    /**
     * One h2c connection of the census: the preface and an empty SETTINGS first, then per request a
     * HEADERS frame (GET /plaintext, literal fields) on the next odd stream, read until that stream ends;
     * the server's SETTINGS are acknowledged. Blocking, like the HTTP/1.1 census.
     */
    private static final class H2Census {
        private static final byte[] PREFACE = ascii("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
        /** :method GET (2), :scheme http (6), :path /plaintext (literal, name 4), :authority census (literal, name 1). */
        private static final byte[] GET_BLOCK = concat(new byte[] {(byte) 0x82, (byte) 0x86, 0x04, 10}, ascii("/plaintext"),
                new byte[] {0x01, 6}, ascii("census"));
        private final SocketChannel ch;
        private int nextStream = 1;

        H2Census(SocketChannel ch) {
            this.ch = ch;
        }

        boolean exchange(ByteBuffer buf) throws IOException {
            int id = nextStream;
            nextStream += 2;
            byte[] request = frame(1, 0x5, id, GET_BLOCK); // END_STREAM | END_HEADERS
            ch.write(ByteBuffer.wrap(id == 1 ? concat(PREFACE, frame(4, 0, 0, new byte[0]), request) : request));
            buf.clear();
            int pos = 0;
            while (true) {
                if (ch.read(buf) < 0) {
                    return false;
                }
                while (buf.position() - pos >= 9) {
                    int len = (buf.get(pos) & 0xff) << 16 | (buf.get(pos + 1) & 0xff) << 8 | (buf.get(pos + 2) & 0xff);
                    if (buf.position() - pos < 9 + len) {
                        break;
                    }
                    int type = buf.get(pos + 3);
                    int flags = buf.get(pos + 4);
                    int stream = buf.getInt(pos + 5) & 0x7fff_ffff;
                    pos += 9 + len;
                    if (type == 4 && (flags & 1) == 0) {
                        ch.write(ByteBuffer.wrap(frame(4, 1, 0, new byte[0])));
                    } else if (type == 7 || type == 3 && stream == id) {
                        return false; // GOAWAY, or our stream reset
                    } else if (stream == id && (type == 0 || type == 1) && (flags & 1) != 0) {
                        return true;
                    }
                }
                if (!buf.hasRemaining()) { // keep the partial frame at the front
                    buf.limit(buf.position()).position(pos);
                    buf.compact();
                    pos = 0;
                    if (!buf.hasRemaining()) {
                        return false;
                    }
                }
            }
        }

        private static byte[] frame(int type, int flags, int stream, byte[] payload) {
            ByteBuffer f = ByteBuffer.allocate(9 + payload.length);
            f.put((byte) (payload.length >>> 16)).put((byte) (payload.length >>> 8)).put((byte) payload.length)
                    .put((byte) type).put((byte) flags).putInt(stream).put(payload);
            return f.array();
        }

        private static byte[] concat(byte[]... parts) {
            java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
            for (byte[] p : parts) {
                b.writeBytes(p);
            }
            return b.toByteArray();
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
