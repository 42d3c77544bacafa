package dev.peregrine.teleport;

import dev.peregrine.loop.Timeout;

/**
 * A node of a loop's timer wheel that runs {@code task} when due: the channel's ping, reconnect and
 * handshake timers, each made once and scheduled again as often as needed (nothing allocated per use).
 *
 * <p>Thread: the loop that owns the wheel.
 */
final class WheelTask extends Timeout {
    private final Runnable task;

    WheelTask(Runnable task) {
        this.task = task;
    }

    @Override
    protected void onTimeout() {
        task.run();
    }
}
