package dev.peregrine.client;

import dev.peregrine.http1.ResponseReader;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.Protocol;

import java.nio.ByteBuffer;

/**
 * A connection's first protocol when it must ask before it can be used: one HTTP/1.1 request written,
 * the head of one answer awaited, then the live connection handed to the protocol that uses it. What
 * {@link ConnectTunnel} (a proxy's CONNECT) and {@link WebSocketHandshake} (the opening handshake) share.
 * <pre>
 *   WAITING --head read, accepted by {@link #onHead}--&gt; handOver(next): switchTo(next), OVER
 *           --head read, refused by {@link #onHead}----&gt; refuse(REFUSED): caller told, closed, OVER
 *           --malformed head---------------------------&gt; refuse(MALFORMED)
 *           --answer over 16 KiB-----------------------&gt; refuse(TOO_LARGE)
 *           --FIN before the head----------------------&gt; refuse(CLOSED)
 *           --no head within timeoutMillis-------------&gt; refuse(TIMEOUT)
 *           --the connection closed under us-----------&gt; RESET told (nothing left to close), OVER
 * </pre>
 * The caller hears exactly one outcome: {@link #tell} once for a failure, or the next protocol's own
 * signal after a hand-over. Interim (1xx) heads before the answer are skipped by the reader unless the
 * subclass expects an upgrade.
 *
 * <p>Thread: the connection's loop thread.
 */
abstract class OpeningExchange implements Protocol {
    /** Why the exchange failed, for the subclass to word for its caller. */
    enum Failure { REFUSED, MALFORMED, TOO_LARGE, CLOSED, TIMEOUT, RESET }

    private static final int T_ANSWER = 1;

    final ResponseReader reader = new ResponseReader(16 * 1024, 0);
    final long timeoutMillis;
    private boolean over;

    OpeningExchange(long timeoutMillis) {
        this.timeoutMillis = timeoutMillis;
    }

    /**
     * The answer's head is in {@link #reader}: hand the connection over ({@link #handOver}) or refuse it
     * ({@link #refuse}). Returns what {@link #onInput} returns.
     *
     * @param afterHead where the bytes after the head begin in the buffer
     * @param end       the end of the buffer's bytes
     */
    abstract int onHead(Connection c, int afterHead, int end);

    /**
     * Tells the caller the exchange failed ({@code detail}: the reason for REFUSED, the reader's error for
     * MALFORMED, else null). Called once; the connection is being closed or is already closed.
     */
    abstract void tell(Failure failure, String detail, Connection c);

    /** Writes the request and starts the answer's timer. */
    final void send(Connection c, byte[] request) {
        if (c.out().remaining() < request.length) {
            c.drain();
        }
        c.out().put(request);
        c.flush();
        c.updateTimer();
    }

    /** The exchange ended before it began (the connect failed): nothing more is told. */
    final void abandon() {
        over = true;
    }

    /** Switches the connection to {@code next}; the bytes from {@code afterHead} on are offered to it next. */
    final int handOver(Connection c, Protocol next, int afterHead) {
        over = true;
        c.switchTo(next);
        c.restartTimerPhase();
        return afterHead;
    }

    /** Fails the exchange: the caller is told, the connection closes. */
    final void refuse(Connection c, Failure failure, String detail) {
        over = true;
        tell(failure, detail, c);
        c.close();
    }

    @Override
    public final int onInput(Connection c, ByteBuffer buf, int start, int end) {
        if (over) {
            return end;
        }
        int r = reader.readHead(buf, start, end);
        if (r == ResponseReader.NEED_MORE) {
            return reader.responseStart(); // interim responses before it are consumed
        }
        if (r == ResponseReader.ERROR) {
            refuse(c, Failure.MALFORMED, reader.error());
            return end;
        }
        return onHead(c, r, end);
    }

    @Override
    public final void onInputOverflow(Connection c) {
        refuse(c, Failure.TOO_LARGE, null);
    }

    @Override
    public final void onEndOfInput(Connection c) {
        if (!over) {
            refuse(c, Failure.CLOSED, null);
        } else {
            c.close();
        }
    }

    @Override
    public final int timerPhase() {
        return over ? 0 : T_ANSWER;
    }

    @Override
    public final long timeoutMillis(int phase) {
        return timeoutMillis;
    }

    @Override
    public final boolean progressRestarts(int phase) {
        return false;
    }

    @Override
    public final void onTimeout(Connection c, int phase) {
        if (!over) {
            refuse(c, Failure.TIMEOUT, null);
        }
    }

    @Override
    public final void onShutdown(Connection c) {
        c.close();
    }

    @Override
    public final void onClosed(Connection c) {
        if (!over) {
            over = true;
            tell(Failure.RESET, null, c);
        }
    }
}
