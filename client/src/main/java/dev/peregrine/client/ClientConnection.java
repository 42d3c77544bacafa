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
 * Thread: the pool's loop thread.
 */
final class ClientConnection implements Protocol {
    private static final int T_IDLE = 1;
    private static final int T_READ_FIRST = 2;
    private static final int T_RECEIVING = 3;

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
        call.attempts++;
        call.connection = this;
        responseStarted = false;
        reader.expect(call.request.method().equals("HEAD"));
        RequestWriter.write(c, call.request);
        c.flush();
        c.updateTimer();
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
        int pos = start;
        while (true) {
            int r = reader.read(buf, pos, end);
            if (r == ResponseReader.INTERIM) {
                pos = reader.interimEnd(); // 100 Continue, 103 Early Hints: skipped
                continue;
            }
            if (r == ResponseReader.NEED_MORE) {
                c.restartTimerPhase();
                return pos;
            }
            if (r == ResponseReader.ERROR) {
                fail(reader.error().startsWith("body") || reader.error().contains("larger than")
                        ? ClientException.Phase.TOO_LARGE : ClientException.Phase.RESPONSE, reader.error());
                c.close();
                return end;
            }
            finish(buf, r < end);
            return end;
        }
    }

    /** The response is complete: answers the call; reuses the connection if both sides allow. */
    private void finish(ByteBuffer buf, boolean extraBytes) {
        ClientResponse response = ClientResponse.of(reader, buf);
        Call done = call;
        call = null;
        done.connection = null;
        served++;
        client.metricsFor(pool.host()).responses.incrementAndGet();
        boolean keepAlive = !extraBytes && !response.closeRequested() && reader.status() != 101;
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
        return reader.keep(src, from, to, dst);
    }

    @Override
    public void onInputOverflow(Connection c) {
        fail(ClientException.Phase.TOO_LARGE, "response larger than " + client.maxResponseBodySize + " bytes");
        c.close();
    }

    @Override
    public void onEndOfInput(Connection c) {
        if (call != null) {
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
        Call failed = call;
        if (failed != null) {
            call = null;
            failed.connection = null;
            client.metricsFor(pool.host()).failures.incrementAndGet();
            failed.fail(new ClientException(phase, pool.host(), why));
        }
    }

    @Override
    public int timerPhase() {
        if (call == null) {
            return T_IDLE;
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
