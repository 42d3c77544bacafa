package dev.peregrine.client;

import java.util.concurrent.CompletableFuture;

/**
 * Anything that sends a request and answers it later: {@link HttpClient} (pooled, one request per
 * connection at a time), {@link PipelineClient} (many in flight per connection). A balancing client
 * spreads its calls over senders of either kind.
 *
 * <p>Thread: any.
 */
public interface HttpSender {
    /**
     * Sends {@code request}; the future completes with the response or a {@link ClientException}
     * (possibly on a loop thread: a dependent action there must not block).
     */
    CompletableFuture<ClientResponse> send(ClientRequest request);
}
