package dev.peregrine.client;

import java.nio.ByteBuffer;

/**
 * Takes a response body piece by piece as it arrives ({@link HttpClient#send(ClientRequest,
 * ResponseBodyListener)}), instead of the client holding it in memory: no body size limit applies.
 * The client reads no more from the socket until a call returns, and not at all while the
 * {@link ReadValve} is shut, so a slow consumer slows the server instead of filling memory.
 *
 * <p>Thread: the connection's loop; must not block.
 */
public interface ResponseBodyListener {
    /**
     * The head arrived: {@code head} has the status and headers (its body is empty). {@code valve}
     * pauses and resumes reading, from any thread, for as long as the body lasts.
     */
    default void onHead(ClientResponse head, ReadValve valve) throws Exception {
    }

    /**
     * The next bytes of the body (chunked coding removed), at {@code [position, limit)} of {@code data}:
     * a read-only view valid only during the call. An exception fails the call and closes the connection.
     */
    void onData(ByteBuffer data) throws Exception;

    /** Pauses and resumes reading a streamed response. Thread: any. */
    interface ReadValve {
        /** Stops reading from the socket after the current piece (the read timeout does not run meanwhile). */
        void pause();

        /** Reads again. */
        void resume();
    }
}
