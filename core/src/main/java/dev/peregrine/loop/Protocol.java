package dev.peregrine.loop;

import java.nio.ByteBuffer;

/**
 * What a {@link Connection} speaks: HTTP/1.1 server ({@code server.Http1ServerProtocol}), the client ({@code client.ClientConnection}), and later
 * WebSocket, HTTP/2 and teleport. The connection owns the socket, the buffers, the batch, the close
 * sequence and the timer; a protocol only turns input into output through this interface and tells
 * the connection what it did. Calls go one way: transport &rarr; {@link Connection} &rarr; protocol
 * &rarr; codecs and handlers.
 *
 * <p><b>Byte ownership.</b> {@link #onInput} sees bytes it does not own: the loop's shared read
 * buffer, or the buffer the connection lent for input that arrived in pieces. It returns how far it
 * consumed; the connection keeps the rest (through {@link #keep}) and offers it again, with what
 * arrives next, from the same first byte. A protocol never keeps a reference to those bytes past the
 * call. Output goes into {@link Connection#out()}, the loop's write buffer; the connection writes the
 * batch once {@link #onInput} returns.
 *
 * <p><b>Switching.</b> A protocol hands the connection to another with {@link Connection#switchTo}
 * during {@link #onInput}, then returns where its own bytes end: the bytes after that point are
 * offered to the new protocol in the same turn (HTTP/1 Upgrade, the HTTP/2 preface, ALPN's choice).
 *
 * <p>Thread: every method runs on the connection's loop thread.
 */
public interface Protocol {
    /** The protocol now speaks on {@code c}: accepted, or switched to. Arms nothing by itself. */
    default void onOpen(Connection c) {
    }

    /**
     * Input arrived: bytes {@code [start, end)} of {@code buf}.
     *
     * @return the index of the first byte not consumed ({@code end} when all were); what is left is
     *         offered again once more bytes arrive, unless the connection is no longer open
     */
    int onInput(Connection c, ByteBuffer buf, int start, int end);

    /**
     * The socket is readable and the protocol wants to read it itself (a request body streamed to a
     * handler, read only up to its end), through {@link Connection#read}. Returns false to let the
     * connection read into its own buffers and call {@link #onInput}.
     */
    default boolean onReadable(Connection c) throws java.io.IOException {
        return false;
    }

    /**
     * Copies the unconsumed bytes {@code [from, to)} of {@code src} that must be offered again into
     * {@code dst} from index 0, and returns how many it copied. {@code dst} may be {@code src}. A
     * protocol may drop bytes it has already decoded (the chunk framing of a body) so held input
     * shrinks; by default everything is kept as it is.
     */
    default int keep(ByteBuffer src, int from, int to, ByteBuffer dst) {
        dst.put(0, src, from, to - from);
        return to - from;
    }

    /** How many bytes the input being held is expected to reach (sizes the lent buffer), or 0. */
    default int expectedInput() {
        return 0;
    }

    /**
     * The input held for the protocol reached the largest buffer the pool lends and it is still not
     * enough. The protocol answers (413, 431...) and closes.
     */
    void onInputOverflow(Connection c);

    /** The peer ended its input (FIN). The connection closes or half-closes as the protocol decides. */
    void onEndOfInput(Connection c);

    /**
     * Output can go on: a batch has just been written, or pending output drained. A protocol that
     * sends something in pieces (a file, a stream) continues here.
     */
    default void onOutputReady(Connection c) {
    }

    /**
     * Whether the protocol still has output to produce that is not in the connection yet (a response
     * off the loop, a body in pieces). A closing connection does not half-close while this holds, and
     * input held meanwhile is not offered again until {@link Connection#resumeInput}.
     */
    default boolean producing() {
        return false;
    }

    /**
     * The protocol's timer phase now, a positive number of its own (at most 127), or 0 when no timer of the
     * protocol's should run (it waits on something with a deadline of its own). Asked after every
     * event while no output is pending; the connection arms its one timer node when the phase changes.
     */
    int timerPhase();

    /** How long {@code phase} may last, in milliseconds. */
    long timeoutMillis(int phase);

    /** Whether activity within {@code phase} restarts its clock (idle: yes; a slow head: no). */
    default boolean progressRestarts(int phase) {
        return true;
    }

    /** {@code phase} ran out. The protocol answers or closes. */
    void onTimeout(Connection c, int phase);

    /** The server is stopping: finish what is under way, then close (see {@code Server.close}). */
    void onShutdown(Connection c);

    /** The connection closed; return what the protocol holds. Called once. */
    void onClosed(Connection c);

    /**
     * After {@link #onClosed}: whether nothing outside this protocol and its connection can still reach
     * either (no task, thread or handler holds them), so the loop may keep both for another socket of
     * the same listener; {@link #onOpen} must then start afresh. False by default: only a protocol that
     * resets itself in {@code onOpen} may say yes ({@code ConnectionRecycler}).
     */
    default boolean recyclable() {
        return false;
    }
}
