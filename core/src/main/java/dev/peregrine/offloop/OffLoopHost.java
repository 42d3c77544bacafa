package dev.peregrine.offloop;

import dev.peregrine.loop.Connection;

/**
 * The one interface between a connection's HTTP/1.1 protocol and the work it does off the loop
 * (implemented by {@code dev.peregrine.server.Http1ServerProtocol}). While one piece of off-loop work
 * is under way — an {@link Exchange}, a response body in pieces ({@link BodySource}), a request body
 * streamed to a handler ({@link IncomingBody}) — the protocol handles no further request; these
 * calls are how the work reports back so that it carries on.
 *
 * <p>Thread: the loop thread.
 */
public interface OffLoopHost {
    /** The loop's HTTP/1.1 state. */
    HttpLoop httpLoop();

    /** The connection the protocol speaks on. */
    Connection connection();

    /** The exchange the protocol waits for, or null. */
    Exchange exchange();

    /** The response body being sent in pieces, or null. */
    BodySource bodyOut();

    /** The request body being streamed to a handler, or null. */
    IncomingBody bodyIn();

    /**
     * Counts a response against the connection's request limit and age and records its duration;
     * true when it is the last the connection may serve (it then says {@code Connection: close}).
     */
    boolean lastAllowed(int status);

    /** The exchange's response is encoded; carry on with the requests that waited (or close). */
    void exchangeDone(boolean keepAlive);

    /** The head is encoded; {@code body} follows in pieces, then the connection carries on (or closes). */
    void startBody(BodySource body, boolean keepAlive);

    /** Moves the body in progress on; when it is all handed over, carries on. */
    void pumpBody();

    /**
     * The exchange's handler failed with {@code t} after its streamed response began (the head is in
     * {@link #connection()}, which the exchange closes next). True when the host reports the failure
     * itself (one that gathers responses whole answers another status instead); false, the default:
     * the exchange logs one WARNING, the client seeing a truncated message.
     */
    default boolean streamFailed(Throwable t) {
        return false;
    }

    /** The streamed request body {@code body} has arrived whole (or been discarded). */
    void bodyInEnded(IncomingBody body);
}
