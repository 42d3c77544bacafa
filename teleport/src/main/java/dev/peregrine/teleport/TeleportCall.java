package dev.peregrine.teleport;

import dev.peregrine.buffer.OutputSink;
import dev.peregrine.client.ClientException;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.ClientResponse;
import dev.peregrine.client.ResponseCallback;
import dev.peregrine.client.ReusableResponse;
import dev.peregrine.client.internal.ReuseAccess;
import dev.peregrine.http1.ResponseReader;
import dev.peregrine.loop.Timeout;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * One request sent through a {@link TeleportChannel}: the request, who hears the answer (the caller's
 * future, or its {@link ReusableResponse} and callback), its id once written, and its deadline (this
 * node, on the channel's loop's wheel). It reaches the loop through the channel's {@link CallInbox}, or
 * as its own loop task when the inbox is full. A call that timed out is answered with phase READ and a
 * CANCEL goes to the server; it stays in the channel's table, marked {@link #cancelled}, until the
 * server's answer (which the server still sends) frees its id.
 * <pre>
 *   acquired (caller) --inbox/task-&gt; queued --batch--&gt; in flight (id) --RESPONSE--&gt; answered, recycled
 *                                       |                  | deadline: failed (READ), CANCEL, cancelled
 *                                       |                  |   --RESPONSE--&gt; dropped, recycled
 *                                       +------------------+-- refused / closed: failed (not recycled:
 *                                                              a queue or a table may still hold it)
 * </pre>
 * Recycled calls go back to their channel's free list ({@link CallPool}), so the reuse path allocates
 * no call once warm.
 *
 * <p>Thread: {@link #init} on the caller's thread before the hand-off; everything else on the
 * channel's loop (a future completes there).
 */
final class TeleportCall extends Timeout implements Runnable {
    private static final ReuseAccess.Operations REUSE = ReuseAccess.get();

    final TeleportChannel channel;
    ClientRequest request;
    /** The caller's future, or null on the reuse path. */
    CompletableFuture<ClientResponse> future;
    private ReusableResponse response;
    private ResponseCallback callback;
    boolean head;
    int id;
    boolean cancelled;
    /** Answered or failed: the caller has heard, nothing more may reach it. */
    boolean done;

    TeleportCall(TeleportChannel channel) {
        this.channel = channel;
    }

    /** Readies this call for {@code request}, told by {@code future} or by {@code response} and {@code callback}. */
    TeleportCall init(ClientRequest request, CompletableFuture<ClientResponse> future, ReusableResponse response,
                      ResponseCallback callback) {
        this.request = request;
        this.future = future;
        this.response = response;
        this.callback = callback;
        this.head = request.method().equals("HEAD");
        this.id = 0;
        this.cancelled = false;
        this.done = false;
        return this;
    }

    /** The hop to the channel's loop. */
    @Override
    public void run() {
        channel.send(this);
    }

    /** Payload bytes of its REQUEST frame. */
    int payloadLength() {
        byte[] body = request.body();
        return request.wireHead().length + (body == null ? 0 : body.length);
    }

    /** Appends this call's REQUEST frame (its id set) to {@code to}; returns the frame's bytes. */
    int writeRequest(OutputSink to) {
        byte[] head = request.wireHead();
        byte[] body = request.body();
        int length = payloadLength();
        if (to.out().remaining() < Frame.HEADER) {
            to.drain();
        }
        Frame.writeHeader(to.out(), length, id, Frame.REQUEST);
        to.append(head, 0, head.length);
        if (body != null) {
            to.append(body, 0, body.length);
        }
        return Frame.HEADER + length;
    }

    /** The response {@code reader} just read from {@code buf} answers this call (not cancelled). */
    void answer(ResponseReader reader, ByteBuffer buf) {
        done = true;
        CompletableFuture<ClientResponse> f = future;
        ReusableResponse r = response;
        ResponseCallback cb = callback;
        ClientRequest req = request;
        if (f != null) {
            byte[] body = new byte[reader.bodyLength()];
            buf.get(reader.bodyStart(), body);
            channel.calls.recycle(this); // before the caller hears: a call it sends at once takes this one again
            f.complete(ClientResponse.of(reader.status(), reader.reason(), reader.namesCopy(), reader.valuesCopy(), body));
            return;
        }
        REUSE.fill(r, reader, buf);
        channel.calls.recycle(this);
        REUSE.complete(r, cb, null, req);
    }

    void fail(ClientException.Phase phase, String reason) {
        if (done) {
            return;
        }
        done = true;
        ClientException e = new ClientException(phase, channel.hostKey(), reason);
        if (future != null) {
            future.completeExceptionally(e);
        } else {
            REUSE.complete(response, callback, e, request);
        }
    }

    /** Forgets the caller's objects (back on the free list). */
    void clear() {
        request = null;
        future = null;
        response = null;
        callback = null;
    }

    @Override
    protected void onTimeout() {
        channel.timedOut(this);
    }
}
