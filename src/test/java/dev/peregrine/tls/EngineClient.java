package dev.peregrine.tls;

import dev.peregrine.testing.RawClient;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLParameters;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A blocking TLS client over a plain socket and a client {@link SSLEngine}, for tests that must see
 * the records themselves: whether a close_notify arrived, and sending one without closing the socket.
 */
final class EngineClient implements Closeable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final SSLEngine engine;
    private final ByteBuffer netIn = ByteBuffer.allocate(64 * 1024);
    private final ByteBuffer netOut = ByteBuffer.allocate(64 * 1024);
    private final ByteBuffer app = ByteBuffer.allocate(64 * 1024);
    private boolean closeNotifyReceived;

    EngineClient(int port, SSLContext ctx, String protocol) throws IOException {
        socket = RawClient.connect(port);
        socket.setSoTimeout(20_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
        engine = ctx.createSSLEngine("localhost", port);
        engine.setUseClientMode(true);
        SSLParameters p = engine.getSSLParameters();
        p.setProtocols(new String[]{protocol});
        engine.setSSLParameters(p);
        netIn.flip();
        handshake();
    }

    private void handshake() throws IOException {
        engine.beginHandshake();
        while (true) {
            switch (engine.getHandshakeStatus()) {
                case NEED_WRAP:
                    wrap(ByteBuffer.allocate(0));
                    break;
                case NEED_UNWRAP:
                case NEED_UNWRAP_AGAIN:
                    unwrapSome();
                    break;
                case NEED_TASK:
                    Runnable t;
                    while ((t = engine.getDelegatedTask()) != null) {
                        t.run();
                    }
                    break;
                default:
                    return;
            }
        }
    }

    private void wrap(ByteBuffer src) throws IOException {
        do {
            netOut.clear();
            engine.wrap(src, netOut);
            netOut.flip();
            out.write(netOut.array(), 0, netOut.limit());
        } while (src.hasRemaining());
        out.flush();
    }

    /** Unwraps one record (reading more as needed); false at EOF. */
    private boolean unwrapSome() throws IOException {
        while (true) {
            SSLEngineResult r = engine.unwrap(netIn, app);
            if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                closeNotifyReceived = true;
                return false;
            }
            if (r.getStatus() != SSLEngineResult.Status.BUFFER_UNDERFLOW) {
                return true;
            }
            netIn.compact();
            int n = in.read(netIn.array(), netIn.position(), netIn.remaining());
            if (n < 0) {
                netIn.flip();
                return false;
            }
            netIn.position(netIn.position() + n);
            netIn.flip();
        }
    }

    void send(String text) throws IOException {
        wrap(ByteBuffer.wrap(text.getBytes(StandardCharsets.ISO_8859_1)));
    }

    /** Sends close_notify and leaves the socket open. */
    void sendCloseNotify() throws IOException {
        engine.closeOutbound();
        while (!engine.isOutboundDone()) {
            wrap(ByteBuffer.allocate(0));
        }
    }

    /** Plaintext until the server's close_notify or EOF. */
    String readToEnd() throws IOException {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        while (true) {
            app.clear();
            boolean more = unwrapSome();
            app.flip();
            text.write(app.array(), 0, app.limit());
            if (!more) {
                return text.toString(StandardCharsets.ISO_8859_1);
            }
            if (engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                wrap(ByteBuffer.allocate(0)); // e.g. answering a key update
            }
        }
    }

    boolean closeNotifyReceived() {
        return closeNotifyReceived;
    }

    String applicationProtocol() {
        return engine.getApplicationProtocol();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
