package dev.peregrine.client.internal;

import dev.peregrine.client.ClientException;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.ResponseCallback;
import dev.peregrine.client.ReusableResponse;
import dev.peregrine.http1.ResponseReader;

import java.nio.ByteBuffer;

/**
 * What another Peregrine module's sender (teleport's) needs of {@link ReusableResponse} to answer
 * {@code send(request, response, callback)} without allocating, as {@code HttpClient} does: claim the
 * object, fill it straight from the {@link ResponseReader} that read the response, release it and call
 * back. Those operations stay package-private in {@code dev.peregrine.client} (they are no user API);
 * this package is exported only to {@code dev.peregrine.teleport}, and {@code ReusableResponse}
 * installs the implementation when its class initialises (the JDK's "shared secrets" pattern).
 *
 * <p>Thread: as each operation's doc on {@code ReusableResponse} says (claim: the caller's; fill:
 * the loop's).
 */
public final class ReuseAccess {
    /** The operations, implemented in {@code dev.peregrine.client}. */
    public interface Operations {
        /** Hands {@code r} to a call: throws {@link IllegalStateException} when it is still in one. */
        void claim(ReusableResponse r);

        /** Fills {@code r} with the response {@code reader} just completed from {@code buf} (fields by reference, the body copied). */
        void fill(ReusableResponse r, ResponseReader reader, ByteBuffer buf);

        /** Ends the call: {@code r} is filled ({@code failure} null) or cleared, released, then {@code callback} runs (a throw is one WARNING). */
        void complete(ReusableResponse r, ResponseCallback callback, ClientException failure, ClientRequest request);
    }

    private static volatile Operations operations;

    private ReuseAccess() {
    }

    /** Installed once by {@code ReusableResponse}. */
    public static void install(Operations ops) {
        if (operations != null) {
            throw new IllegalStateException("already installed");
        }
        operations = ops;
    }

    /** The operations (initialising {@link ReusableResponse} first if needed). */
    public static Operations get() {
        Operations ops = operations;
        if (ops == null) {
            new ReusableResponse(); // runs its static initialiser, which installs them
            ops = operations;
        }
        return ops;
    }
}
