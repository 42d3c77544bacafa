package dev.peregrine.client;

/**
 * Hears the end of a call made on the reuse path ({@link HttpSender#send(ClientRequest, ReusableResponse,
 * ResponseCallback)}): the caller's {@link ReusableResponse} now holds the response, or the call failed.
 * One callback object may serve every call (the response it is handed says which one ended), so a caller
 * that keeps its responses and its callback allocates nothing per request.
 *
 * <p>Thread: the loop thread that read the response (or, for a call refused at once, such as one made
 * after {@code close()}, the caller's). It must not block. It may send again at once, with the same
 * response object: a call made on a loop thread stays on that loop without a hop.
 */
@FunctionalInterface
public interface ResponseCallback {
    /**
     * The call ended. On success {@code failure} is null and {@code response} holds status, headers and
     * body, valid until {@code response} is passed to {@code send} again. On failure {@code response} is
     * empty (status 0) and {@code failure} names the phase and the host. An exception thrown here is
     * logged as one WARNING line and otherwise ignored.
     */
    void onResponse(ReusableResponse response, ClientException failure);
}
