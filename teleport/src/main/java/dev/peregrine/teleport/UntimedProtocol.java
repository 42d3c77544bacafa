package dev.peregrine.teleport;

import dev.peregrine.loop.Connection;
import dev.peregrine.loop.Protocol;

/**
 * A {@link Protocol} whose connection the connection layer never times: something else bounds it
 * instead ({@link TeleportChannel}'s own nodes on the loop's wheel: call deadlines, the handshake,
 * pings), or nothing can stall it ({@link ResponseCapture}, a response written into memory). Its timer
 * phase is 0, so the connection's timer stays unarmed and {@link #onTimeout} never comes.
 */
interface UntimedProtocol extends Protocol {
    @Override
    default int timerPhase() {
        return 0;
    }

    @Override
    default long timeoutMillis(int phase) {
        return 0;
    }

    @Override
    default void onTimeout(Connection c, int phase) {
    }
}
