package dev.peregrine.client;

import dev.peregrine.http1.ResponseReader;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.Protocol;

import java.nio.ByteBuffer;

/**
 * The HTTP/1.1 client as a {@link Protocol}: one request at a time on one connection of a
 * {@link HostPool}. It writes the request, reads the response with {@link ResponseReader}, answers
 * the call, and goes back to the pool if the connection may be reused.
 * <pre>
 *   connected --&gt; SENT (request written; READ_FIRST phase: readTimeout until the first byte)
 *                  --&gt; first byte: RECEIVING (readTimeout, restarted by every arrival)
 *                  --&gt; response complete: keep-alive? --&gt; IDLE in the pool (maxIdleTime)
 *                                                     else close
 *   IDLE --&gt; any byte or FIN or RST: closed and evicted (never handed out dead)
 *   SENT, before any response byte, on a reused connection: FIN/RST --&gt; retried on a new
 *        connection if the request is idempotent (the server closed the keep-alive meanwhile)
 *   bad response / too large / timeout --&gt; the call fails naming the phase; the connection closes
 * </pre>
 * A streamed request body ({@link RequestBodyPump}) is pulled while the socket takes it (SENDING phase,
 * restarted by progress); a call with a {@link ResponseBodyListener} has its response handed on as it
 * arrives ({@link ResponseStream}), with no timer of the connection's while the listener paused it.
 * Thread: the pool's loop thread.
 */
final class ClientConnection implements Protocol {
    private static final int T_IDLE = 1;
    private static final int T_READ_FIRST = 2;
    private static final int T_RECEIVING = 3;
    private static final int T_SENDING = 4;
    /** Batches a streamed request body may write in one turn before it lets the loop's other work run. */
    private static final int PUMP_BATCHES_PER_TURN = 16;

    private final HostPool pool;
    private final HttpClient client;
    private final ResponseReader reader;
    private final long openedAtMillis = System.currentTimeMillis();
    private Connection c;
    private Call call;
    private boolean responseStarted;
    /** Exchanges completed on this connection: a reused connection may have been closed by the server. */
    private int served;
    private long idleSinceMillis;
    /** The streamed request body being sent, or null. */
    private RequestBodyPump bodyPump;
    /** The response being handed to the call's listener, or null when it is read into memory. */
    private ResponseStream stream;
    private final Runnable pumpLater = this::pumpBody;

    ClientConnection(HostPool pool) {
        this.pool = pool;
        this.client = pool.client();
        this.reader = new ResponseReader(client.maxHeadSize, client.maxResponseBodySize);
    }

    @Override
    public void onOpen(Connection c) {
        this.c = c;
    }

    /** Sends {@code call}'s request on this connection. */
    void start(Call call) {
        if (call.done()) {
            pool.released(this);
            return;
        }
        this.call = call;
        // A connection reused within the event that freed it never passed through IDLE as far as the
        // timer knows: without this the new request would inherit the previous one's READ_FIRST clock.
        c.restartTimerPhase();
        call.attempts++;
        call.connection = this;
        responseStarted = false;
        reader.expect(call.request.method().equals("HEAD"));
        stream = call.listener != null ? new ResponseStream(reader, call.listener, c) : null;
        RequestWriter.write(c, call.request);
        if (call.request.producer() != null) {
            bodyPump = new RequestBodyPump(call.request.producer(), call.request.producedLength());
            pumpBody();
        } else {
            c.flush();
            c.updateTimer();
        }
    }

    /** Sends more of the streamed request body, as far as the socket takes it and the turn allows. */
    private void pumpBody() {
        if (bodyPump == null || call == null || !c.isOpen()) {
            return;
        }
        try {
            if (bodyPump.pump(c, PUMP_BATCHES_PER_TURN)) {
                bodyPump = null;
            } else if (c.pendingOutput() == 0) {
                c.context().eventLoop().execute(pumpLater); // a turn's share written: fair to the loop's other connections
            } // else onOutputReady calls again once the socket took it
        } catch (IllegalStateException e) {
            fail(ClientException.Phase.WRITE, e.getMessage(), e.getCause());
            c.close();
            return;
        }
        c.flush();
        c.updateTimer();
    }

    @Override
    public boolean producing() {
        return bodyPump != null;
    }

    @Override
    public void onOutputReady(Connection c) {
        if (bodyPump != null && c.pendingOutput() == 0) {
            pumpBody();
        }
    }

    /** Whether an idle connection may serve another request now. */
    boolean usable(long now) {
        return c != null && c.isOpen() && now - idleSinceMillis < client.maxIdleMillis
                && (client.maxLifetimeMillis <= 0 || now - openedAtMillis < client.maxLifetimeMillis);
    }

    /** Closes the connection, whatever it is doing (a timeout, the client closing). */
    void abandon() {
        if (c != null) {
            c.close();
        }
    }

    @Override
    public int onInput(Connection c, ByteBuffer buf, int start, int end) {
        if (call == null) {
            c.close(); // bytes nobody asked for on an idle connection: it cannot be trusted any more
            return end;
        }
        responseStarted = true;
        if (stream != null) {
            return streamed(c, buf, start, end);
        }
        int pos = start;
        while (true) {
            int r = reader.read(buf, pos, end);
            if (r == ResponseReader.NEED_MORE) {
                c.restartTimerPhase();
                return reader.responseStart(); // interim responses before it are consumed
            }
            if (r == ResponseReader.ERROR) {
                fail(ClientException.phaseOf(reader.failure()), reader.error());
                c.close();
                return end;
            }
            finish(buf, r < end);
            return end;
        }
    }

    /** Hands the response to the call's listener as it arrives. */
    private int streamed(Connection c, ByteBuffer buf, int start, int end) {
        int r = stream.onInput(buf, start, end);
        if (r == ResponseStream.FAILED) {
            fail(stream.phase(), stream.error(), stream.cause());
            c.close();
            return end;
        }
        if (stream.done()) {
            finishStreamed(r < end);
            return end;
        }
        return r;
    }

    private void finishStreamed(boolean extraBytes) {
        ClientResponse head = stream.head();
        boolean persistent = reader.persistent(); // the head's fields are the reader's until the next expect
        if (stream.endPause()) {
            // Paused during the last piece: reading comes back once this event is over (not from inside
            // it, where the connection is still offering input), so the pooled connection reads again.
            c.context().eventLoop().execute(c::resumeInput);
        }
        stream = null;
        Call done = call;
        call = null;
        done.connection = null;
        served++;
        pool.metrics.responses.incrementAndGet();
        if (!extraBytes && persistent && head.status() != 101 && bodyPump == null && c.isOpen()) {
            idleSinceMillis = System.currentTimeMillis();
            pool.released(this);
        } else {
            bodyPump = null; // answered before its request body was all sent: the connection cannot go on
            c.close();
        }
        done.succeed(head);
    }

    /** The response is complete: answers the call; reuses the connection if both sides allow. */
    private void finish(ByteBuffer buf, boolean extraBytes) {
        Call done = call;
        ClientResponse response = done.collect(reader, buf); // null on the reuse path: the caller's object is filled
        call = null;
        done.connection = null;
        served++;
        pool.metrics.responses.incrementAndGet();
        boolean keepAlive = !extraBytes && reader.persistent()
                && reader.status() != 101 && bodyPump == null;
        bodyPump = null;
        // Back to the pool before the caller hears: a dependent that runs at once on this loop (a
        // redirect's next hop, a proxy handler's next call) finds the connection idle and reuses it.
        if (keepAlive && c.isOpen()) {
            idleSinceMillis = System.currentTimeMillis();
            pool.released(this);
        } else {
            c.close();
        }
        done.succeed(response);
    }

    @Override
    public int keep(ByteBuffer src, int from, int to, ByteBuffer dst) {
        if (stream != null) {
            dst.put(0, src, from, to - from); // a streamed body keeps only what it has not taken
            return to - from;
        }
        return reader.keep(src, from, to, dst);
    }

    @Override
    public void onInputOverflow(Connection c) {
        fail(ClientException.Phase.TOO_LARGE, "response larger than " + client.maxResponseBodySize + " bytes");
        c.close();
    }

    @Override
    public void onEndOfInput(Connection c) {
        if (call != null && stream != null && responseStarted) {
            if (stream.atEndOfInput()) {
                finishStreamed(false);
            } else {
                fail(ClientException.Phase.CLOSED, stream.error());
            }
        } else if (call != null) {
            if (responseStarted) {
                ByteBuffer held = c.heldInput();
                int r = held == null ? ResponseReader.ERROR : reader.atEndOfInput(held, 0, c.heldInputLength());
                if (r >= 0) {
                    finish(held, false);
                    return;
                }
                fail(ClientException.Phase.CLOSED, held == null ? "connection closed before the response was complete"
                        : reader.error());
            } else {
                lostBeforeResponse("connection closed by the server before the response");
            }
        }
        c.close();
    }

    /**
     * The connection ended before any response byte. A keep-alive connection the server closed
     * between requests looks exactly like this: an idempotent request is retried on a new connection.
     */
    private void lostBeforeResponse(String why) {
        Call lost = call;
        call = null;
        lost.connection = null;
        if (served > 0 && pool.retry(lost, why)) {
            return;
        }
        lost.fail(new ClientException(ClientException.Phase.CLOSED, pool.host(), why));
    }

    private void fail(ClientException.Phase phase, String why) {
        fail(phase, why, null);
    }

    private void fail(ClientException.Phase phase, String why, Throwable cause) {
        Call failed = call;
        if (failed != null) {
            call = null;
            stream = null;
            bodyPump = null;
            failed.connection = null;
            pool.metrics.failures.incrementAndGet();
            failed.fail(cause == null ? new ClientException(phase, pool.host(), why)
                    : new ClientException(phase, pool.host(), why, cause));
        }
    }

    @Override
    public int timerPhase() {
        if (call == null) {
            return T_IDLE;
        }
        if (stream != null && stream.paused()) {
            return 0; // the listener holds the response back: only the total timeout runs
        }
        if (bodyPump != null && !responseStarted) {
            return T_SENDING;
        }
        return responseStarted ? T_RECEIVING : T_READ_FIRST;
    }

    @Override
    public long timeoutMillis(int phase) {
        return phase == T_IDLE ? client.maxIdleMillis : client.readTimeoutMillis;
    }

    @Override
    public boolean progressRestarts(int phase) {
        return phase != T_READ_FIRST;
    }

    @Override
    public void onTimeout(Connection c, int phase) {
        if (phase == T_READ_FIRST) {
            fail(ClientException.Phase.READ, "no response within the read timeout of " + client.readTimeoutMillis + " ms");
        } else if (phase == T_SENDING) {
            fail(ClientException.Phase.WRITE, "the request body made no progress for " + client.readTimeoutMillis + " ms");
        } else if (phase == T_RECEIVING) {
            fail(ClientException.Phase.READ, "response stalled for the read timeout of " + client.readTimeoutMillis + " ms");
        }
        c.close();
    }

    @Override
    public void onShutdown(Connection c) {
        c.close();
    }

    @Override
    public void onClosed(Connection c) {
        bodyPump = null;
        javax.net.ssl.SSLException tls = c.endpoint().tlsFailure();
        if (call != null && tls != null) {
            // Fail closed, and say why: a certificate or host name check is not a reset, and not retried.
            fail(ClientException.Phase.TLS, "TLS failed: " + tls.getMessage(), tls);
        }
        if (call != null) {
            if (!responseStarted) {
                lostBeforeResponse("connection reset before the response");
            } else {
                fail(ClientException.Phase.CLOSED, "connection reset in the middle of the response");
            }
        }
        pool.closed(this);
    }
}
