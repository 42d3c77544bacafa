package dev.peregrine.teleport;

import dev.peregrine.client.ClientException;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.ClientResponse;
import dev.peregrine.loop.Timeout;

import java.util.concurrent.CompletableFuture;

/**
 * One request sent through a {@link TeleportChannel}: the request, the caller's future, its id once
 * written, and its deadline (this node, on the channel's loop's wheel). A call that timed out is
 * answered with phase READ and a CANCEL goes to the server; it stays in the channel's table, marked
 * {@link #cancelled}, until the server's answer (which the server still sends) frees its id.
 *
 * <p>Thread: the channel's loop, but for the future, which completes there.
 */
final class TeleportCall extends Timeout {
    final ClientRequest request;
    final CompletableFuture<ClientResponse> future = new CompletableFuture<>();
    final boolean head;
    final TeleportChannel channel;
    int id;
    boolean cancelled;

    TeleportCall(TeleportChannel channel, ClientRequest request) {
        this.channel = channel;
        this.request = request;
        this.head = request.method().equals("HEAD");
    }

    /** Payload bytes of its REQUEST frame. */
    int payloadLength() {
        byte[] body = request.body();
        return request.wireHead().length + (body == null ? 0 : body.length);
    }

    void fail(ClientException.Phase phase, String reason) {
        future.completeExceptionally(new ClientException(phase, channel.hostKey(), reason));
    }

    @Override
    protected void onTimeout() {
        channel.timedOut(this);
    }
}
