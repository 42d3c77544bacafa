package dev.peregrine.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

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

    /**
     * Sends {@code request}, fills {@code response} in place and calls {@code callback} (fasthttp's
     * {@code Do(req, resp)}). {@link HttpClient}, {@link PipelineClient} and teleport's
     * {@code TeleportClient} do it without allocating once warm (see
     * {@link HttpClient#send(ClientRequest, ReusableResponse, ResponseCallback)}); this
     * default goes through {@link #send(ClientRequest)}, so other senders (a {@link BalancingClient})
     * answer alike but allocate what that does. {@code callback} runs on the thread completing the call.
     *
     * @throws IllegalStateException when {@code response} is still in a call
     * @throws IllegalArgumentException when {@code response} or {@code callback} is null
     */
    default void send(ClientRequest request, ReusableResponse response, ResponseCallback callback) {
        if (response == null || callback == null) {
            throw new IllegalArgumentException("response and callback must not be null");
        }
        response.claim();
        send(request).whenComplete((r, failure) -> {
            Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            ClientException e = null;
            if (cause == null) {
                response.fill(r);
            } else {
                response.clear();
                e = cause instanceof ClientException ? (ClientException) cause : new ClientException(
                        ClientException.Phase.CLOSED, request.hostKey(), String.valueOf(cause), cause);
            }
            response.unclaim();
            Call.callBack(callback, response, e, request);
        });
    }

    /**
     * Sends {@code request} and waits for the response, on the calling thread (not from a loop thread:
     * it would wait for itself).
     *
     * @throws ClientException as {@link #send} completes with it; {@code SHUTDOWN} when interrupted
     */
    default ClientResponse execute(ClientRequest request) throws ClientException {
        try {
            return send(request).get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ClientException) {
                throw (ClientException) e.getCause();
            }
            throw new ClientException(ClientException.Phase.CLOSED, request.hostKey(), String.valueOf(e.getCause()), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClientException(ClientException.Phase.SHUTDOWN, request.hostKey(), "interrupted", e);
        }
    }
}
