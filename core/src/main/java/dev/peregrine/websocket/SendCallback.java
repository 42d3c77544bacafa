package dev.peregrine.websocket;

import java.util.concurrent.CompletableFuture;

/**
 * Told once what became of one send: {@code failure} is null when the frame was handed to the
 * connection (written, or queued behind output the peer has not taken yet), else why it was not (the
 * session closed first). Runs on the connection's loop thread: it must not block.
 */
@FunctionalInterface
public interface SendCallback {
    void done(Throwable failure);

    /** A callback completing {@code future}: a future per send, for those who want one. */
    static SendCallback of(CompletableFuture<Void> future) {
        return failure -> {
            if (failure == null) {
                future.complete(null);
            } else {
                future.completeExceptionally(failure);
            }
        };
    }
}
