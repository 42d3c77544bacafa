package dev.peregrine.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A raw-socket server playing a script per connection, for client tests: it reads requests, answers
 * with exact bytes, closes by FIN or RST, stalls, or sends garbage, as each test needs.
 */
public final class ScriptedServer implements AutoCloseable {
    /** What to do with one accepted connection (the n-th, from 0). */
    public interface Script {
        void play(Conn c, int n) throws IOException;
    }

    /** One accepted connection as the script sees it. */
    public static final class Conn {
        public final Socket socket;
        private final InputStream in;
        /** The body of the request {@link #readRequest()} read last (empty for none). */
        public byte[] lastBody = new byte[0];

        Conn(Socket socket) throws IOException {
            this.socket = socket;
            this.in = socket.getInputStream();
        }

        /** Reads one request head (and a Content-Length body); returns the head, or null at EOF. */
        public String readRequest() throws IOException {
            String h = readHead(in);
            if (h == null) {
                return null;
            }
            lastBody = new byte[0];
            for (String line : h.split("\r\n")) {
                if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                    int n = Integer.parseInt(line.substring(15).trim());
                    lastBody = in.readNBytes(n);
                }
            }
            return h;
        }

        public void write(String s) throws IOException {
            socket.getOutputStream().write(s.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
        }

        /** Closes with RST instead of FIN. */
        public void reset() throws IOException {
            socket.setSoLinger(true, 0);
            socket.close();
        }
    }

    /** Reads one request head, up to its CRLF CRLF, from {@code in}; null at EOF. */
    public static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
            matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : b == '\r' ? 1 : 0;
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    private final ServerSocket listener;
    private final Thread acceptor;
    private final AtomicInteger accepted = new AtomicInteger();
    private final List<Socket> sockets = new ArrayList<>();

    public ScriptedServer(Script script) throws IOException {
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(() -> {
            while (!listener.isClosed()) {
                try {
                    Socket s = listener.accept();
                    synchronized (sockets) {
                        sockets.add(s);
                    }
                    int n = accepted.getAndIncrement();
                    Thread t = new Thread(() -> {
                        try {
                            script.play(new Conn(s), n);
                        } catch (IOException e) {
                            // the client went away: the script ends
                        }
                    }, "scripted-conn-" + n);
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    return;
                }
            }
        }, "scripted-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return listener.getLocalPort();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + port() + path;
    }

    /** Connections accepted so far. */
    public int accepted() {
        return accepted.get();
    }

    @Override
    public void close() throws IOException {
        listener.close();
        synchronized (sockets) {
            for (Socket s : sockets) {
                s.close();
            }
        }
    }
}
