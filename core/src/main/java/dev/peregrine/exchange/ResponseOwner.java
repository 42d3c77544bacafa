package dev.peregrine.exchange;

import dev.peregrine.Completion;

import java.io.OutputStream;

/**
 * What a {@link ResponseView} turns to for the parts of a response that outlive the handler call:
 * an asynchronous completion and a streamed body. The loop's shared response has one owner per loop;
 * a response handed off the loop is owned by its exchange.
 */
public interface ResponseOwner {
    /** Starts finishing {@code res}'s exchange later; see {@link dev.peregrine.Response#async()}. */
    Completion startAsync(ResponseView res);

    /** Opens the streamed body of {@code res}; see {@link dev.peregrine.Response#outputStream()}. */
    OutputStream openStream(ResponseView res);

    /**
     * Sends an interim response {@code status} with {@code headers} (name, value pairs, already
     * validated) ahead of {@code res}'s final one; see {@link dev.peregrine.Response#interim}.
     */
    void sendInterim(ResponseView res, int status, String[] headers);

    /**
     * Runs {@code hook} on the response that finally answers {@code res}'s request, which was handed
     * over by {@code async()}: on the loop, when it completes, before it is encoded.
     */
    default void deferAfter(ResponseView res, dev.peregrine.Handler hook) {
        throw new IllegalStateException("this response belongs to no exchange");
    }

    /** The application's body for the server's own errors ({@code errorPage}), or null. */
    default dev.peregrine.ErrorPage errorPage() {
        return null;
    }
}
