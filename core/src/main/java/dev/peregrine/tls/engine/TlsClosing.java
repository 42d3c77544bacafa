package dev.peregrine.tls.engine;

import dev.peregrine.loop.SocketEndpoint;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * How one {@link TlsEndpoint}'s output ends (RFC 8446 §6.1): a close_notify alert, then FIN once every
 * record before it has been written; after an error, the alert the engine prepared, best effort.
 *
 * <pre>
 *   OPEN --shutdownOutput/close--&gt; close_notify wrapped --records written--&gt; FIN sent
 *     |                                       \--socket full: FIN PENDING (sent by finIfPending)
 *     +--error (fail)--&gt; engine's alert, best effort; output closed
 * </pre>
 *
 * Nothing is wrapped while the engine's delegated tasks run ({@link TlsHandshake#taskRunning}).
 * Thread: the owning loop.
 */
final class TlsClosing {
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final SocketEndpoint socket;
    private final SSLEngine engine;
    private final TlsBuffers buffers;
    private final TlsHandshake handshake;
    /** No more application data may be wrapped: close_notify sent, the engine's output done, or an error. */
    private boolean outputClosed;
    /** FIN is owed once {@code netOut} is written. */
    private boolean finPending;

    TlsClosing(SocketEndpoint socket, SSLEngine engine, TlsBuffers buffers, TlsHandshake handshake) {
        this.socket = socket;
        this.engine = engine;
        this.buffers = buffers;
        this.handshake = handshake;
    }

    boolean outputClosed() {
        return outputClosed;
    }

    /** The engine ended its output by itself (its close_notify answering the peer's). */
    void engineOutputDone() {
        outputClosed = true;
    }

    /**
     * Sends close_notify, then FIN if the socket took every record; returns true when FIN is left
     * pending (the caller wants writability, then {@link #finIfPending}).
     */
    boolean shutdownOutput() {
        try {
            sendCloseNotify();
            if (buffers.flush(socket)) {
                socket.shutdownOutput();
                return false;
            }
            finPending = true;
            return true;
        } catch (IOException e) {
            socket.shutdownOutput(); // the peer is gone; the close that follows cleans up
            return false;
        }
    }

    /** {@code netOut} was written: the FIN owed, if any, goes now. */
    void finIfPending() {
        if (finPending) {
            finPending = false;
            socket.shutdownOutput();
        }
    }

    /** Wraps close_notify into {@code netOut} (once; never while tasks run). */
    void sendCloseNotify() {
        if (outputClosed || handshake.taskRunning()) {
            return;
        }
        outputClosed = true;
        engine.closeOutbound();
        try {
            for (int i = 0; i < 4 && !engine.isOutboundDone(); i++) {
                if (buffers.wrap(engine, EMPTY).bytesProduced() == 0) {
                    break;
                }
            }
        } catch (SSLException e) {
            // nothing more to say to this peer
        }
    }

    /** After a TLS error: tries to send the alert the engine prepared. */
    void fail() {
        if (handshake.taskRunning()) {
            return;
        }
        try {
            outputClosed = true;
            if (engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                buffers.wrap(engine, EMPTY);
            }
            buffers.flush(socket);
        } catch (IOException | RuntimeException ignored) {
            // best effort only
        }
    }
}
