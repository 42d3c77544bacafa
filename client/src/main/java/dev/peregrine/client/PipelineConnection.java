package dev.peregrine.client;

import dev.peregrine.http1.ResponseReader;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.Protocol;
import dev.peregrine.loop.FineTimeout;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * The pipelining HTTP/1.1 client as a {@link Protocol}: many requests in flight on one connection of a
 * {@link PipelineHost}, their responses matched in the order the requests were written (RFC 9112
 * §9.3.2).
 * <pre>
 *   enqueue(call) --&gt; queued (not written) --flush--&gt; sent (written, waiting, in order)
 *                                                      --&gt; its response complete: answered
 *   flush: at the end of the loop's turn (a task queued behind the calls that arrived with it), or
 *          after maxBatchDelay (a fine deadline of the loop: LoopContext.scheduleFine); one write for the whole batch
 *   timer: IDLE (nothing sent: maxIdle) | WAITING (something sent: readTimeout, restarted by each arrival)
 *   broken (FIN, RST, bad response, read timeout, Connection: close):
 *     the call whose response had begun fails (CLOSED / RESPONSE / READ);
 *     every other sent call, which got no byte, is retried on another connection if idempotent
 *     (PipelineHost.retry), else fails CLOSED; queued calls were never written and go back unchanged
 * </pre>
 * A call whose total timeout ran out while its request is in flight stays in {@code sent}: its late
 * response is read and dropped, so the calls behind it still get theirs.
 *
 * <p>Thread: the host's loop thread.
 */
final class PipelineConnection implements Protocol {
    private static final int T_IDLE = 1;
    private static final int T_WAITING = 2;

    private final PipelineHost host;
    private final HttpClient client;
    private final ResponseReader reader;
    private final long openedAtMillis = System.currentTimeMillis();
    private final ArrayDeque<Call> queued = new ArrayDeque<>();
    private final ArrayDeque<Call> sent = new ArrayDeque<>();
    private final Runnable flushTask = this::flushQueued;
    private final BatchTimer batchTimer = new BatchTimer();
    private Connection c;
    private boolean connected;
    /** The reader was prepared ({@link ResponseReader#expect}) for the response of {@code sent}'s head. */
    private boolean armed;
    /** A byte of the response to {@code sent}'s head has arrived: that call is never retried. */
    private boolean headStarted;
    private boolean flushScheduled;
    /** No further call may join (the server said it closes, or the connection broke). */
    private boolean closing;

    PipelineConnection(PipelineHost host) {
        this.host = host;
        this.client = host.client();
        this.reader = new ResponseReader(client.maxHeadSize, client.maxResponseBodySize);
    }

    /** Calls on this connection, written or not. */
    int pending() {
        return queued.size() + sent.size();
    }

    /** Whether a new call may join now. */
    boolean accepting(long now) {
        return !closing && (c == null || c.isOpen())
                && (client.maxLifetimeMillis <= 0 || now - openedAtMillis < client.maxLifetimeMillis);
    }

    /** Adds {@code call} to the next batch. */
    void enqueue(Call call) {
        call.waitingSinceMillis = -1;
        queued.add(call);
        if (!connected) {
            return; // flushed once connected
        }
        if (host.maxBatchDelayMillis > 0 && pending() < host.maxPending) {
            if (!flushScheduled) {
                flushScheduled = true;
                host.context().scheduleFine(batchTimer, host.maxBatchDelayMillis); // to the loop's latency, not the wheel's tick
            }
        } else if (!flushScheduled || batchTimer.scheduled()) {
            host.context().fineTimers().cancel(batchTimer);
            flushScheduled = true;
            host.loop().execute(flushTask); // behind the calls queued to the loop with this one
        }
    }

    @Override
    public void onOpen(Connection c) {
        this.c = c;
    }

    /** The connect (and TLS) finished: what was queued meanwhile goes out. */
    void connected() {
        connected = true;
        if (closing) {
            c.close(); // abandoned while connecting
            return;
        }
        flushQueued();
    }

    /** Closes the connection whatever it is doing (the client closing); its calls fail or go back. */
    void abandon() {
        if (c != null) {
            c.close();
        } else {
            connectFailed(new ClientException(ClientException.Phase.SHUTDOWN, host.host(), "client closed"));
        }
    }

    /** The connect failed: nothing was written, every queued call fails with {@code e}. */
    void connectFailed(ClientException e) {
        closing = true;
        Call call;
        while ((call = queued.poll()) != null) {
            call.fail(e);
        }
    }

    /** Writes every queued request in one batch. */
    private void flushQueued() {
        flushScheduled = false;
        host.context().fineTimers().cancel(batchTimer);
        if (c == null || !c.isOpen()) {
            return; // onClosed handed the calls back
        }
        Call call;
        while ((call = queued.poll()) != null) {
            if (call.done()) {
                continue; // timed out before it was written: nothing to read for it
            }
            call.attempts++;
            sent.add(call);
            RequestWriter.write(c, call.request);
            if (!c.isOpen()) {
                return; // the write failed: onClosed dealt with every call
            }
        }
        c.flush();
        c.updateTimer();
    }

    @Override
    public int onInput(Connection c, ByteBuffer buf, int start, int end) {
        c.restartTimerPhase(); // bytes arrived: the read timeout starts again
        int pos = start;
        while (pos < end) {
            Call head = sent.peek();
            if (head == null) {
                // Bytes nobody asked for: the stream cannot be trusted any more (RFC 9112 §9.3.2).
                closing = true;
                c.close();
                return end;
            }
            if (!armed) {
                reader.expect(head.request.method().equals("HEAD"));
                armed = true;
            }
            headStarted = true;
            int r = reader.read(buf, pos, end);
            if (r == ResponseReader.NEED_MORE) {
                return reader.responseStart(); // interim responses before it are consumed
            }
            if (r == ResponseReader.ERROR) {
                failHead(ClientException.phaseOf(reader.failure()), reader.error());
                c.close();
                return end;
            }
            answerHead(buf);
            pos = r;
            if (closing) {
                c.close(); // Connection: close: what was sent behind it is retried elsewhere
                return end;
            }
        }
        return pos;
    }

    /** The response to {@code sent}'s head is complete in {@code buf}: answers that call. */
    private void answerHead(ByteBuffer buf) {
        Call done = sent.poll();
        armed = false;
        headStarted = false;
        host.metrics.responses.incrementAndGet();
        if (!reader.persistent() || reader.status() == 101) {
            closing = true;
        }
        // collect and succeed are no-ops for a call its total timeout already failed: the late response is dropped
        done.succeed(done.collect(reader, buf));
    }

    private void failHead(ClientException.Phase phase, String why) {
        Call failed = sent.poll();
        armed = false;
        headStarted = false;
        closing = true;
        host.metrics.failures.incrementAndGet();
        failed.fail(new ClientException(phase, host.host(), why));
    }

    @Override
    public int keep(ByteBuffer src, int from, int to, ByteBuffer dst) {
        return reader.keep(src, from, to, dst);
    }

    @Override
    public void onInputOverflow(Connection c) {
        if (!sent.isEmpty()) {
            failHead(ClientException.Phase.TOO_LARGE, "response larger than " + client.maxResponseBodySize + " bytes");
        }
        c.close();
    }

    @Override
    public void onEndOfInput(Connection c) {
        if (headStarted) {
            ByteBuffer held = c.heldInput();
            int r = held == null ? ResponseReader.ERROR : reader.atEndOfInput(held, 0, c.heldInputLength());
            if (r >= 0) {
                answerHead(held); // a body read until the close
            } else {
                failHead(ClientException.Phase.CLOSED, held == null
                        ? "connection closed before the response was complete" : reader.error());
            }
        }
        c.close();
    }

    @Override
    public int timerPhase() {
        return sent.isEmpty() ? T_IDLE : T_WAITING;
    }

    @Override
    public long timeoutMillis(int phase) {
        return phase == T_IDLE ? client.maxIdleMillis : client.readTimeoutMillis;
    }

    @Override
    public boolean progressRestarts(int phase) {
        return phase == T_IDLE; // WAITING restarts only when bytes arrive (restartTimerPhase), not when more is sent
    }

    @Override
    public void onTimeout(Connection c, int phase) {
        if (phase == T_WAITING && !sent.isEmpty()) {
            String why = "no response byte within the read timeout of " + client.readTimeoutMillis + " ms";
            closing = true;
            while (!sent.isEmpty()) {
                failHead(ClientException.Phase.READ, why);
            }
        }
        c.close();
    }

    @Override
    public void onShutdown(Connection c) {
        c.close();
    }

    @Override
    public void onClosed(Connection c) {
        closing = true;
        host.context().fineTimers().cancel(batchTimer);
        host.closed(this);
        boolean first = true;
        Call call;
        javax.net.ssl.SSLException tls = c.endpoint().tlsFailure();
        if (tls != null) { // fail closed and say why; neither retried nor sent elsewhere (the same check would fail)
            while ((call = sent.poll()) != null || (call = queued.poll()) != null) {
                host.metrics.failures.incrementAndGet();
                call.fail(new ClientException(ClientException.Phase.TLS, host.host(), "TLS failed: " + tls.getMessage(), tls));
            }
            return;
        }
        while ((call = sent.poll()) != null) {
            if (first && headStarted) {
                host.metrics.failures.incrementAndGet();
                call.fail(new ClientException(ClientException.Phase.CLOSED, host.host(),
                        "connection closed in the middle of the response"));
            } else if (!host.retry(call)) {
                host.metrics.failures.incrementAndGet();
                call.fail(new ClientException(ClientException.Phase.CLOSED, host.host(),
                        "connection closed before the response (" + (sent.size() + 1) + " requests were in flight on it)"));
            }
            first = false;
        }
        while ((call = queued.poll()) != null) {
            host.submit(call); // never written: safe to send anywhere, whatever the method
        }
    }

    /** Fires the batch {@code maxBatchDelay} after its first call. */
    private final class BatchTimer extends FineTimeout {
        @Override
        protected void onTimeout() {
            flushQueued();
        }
    }
}
