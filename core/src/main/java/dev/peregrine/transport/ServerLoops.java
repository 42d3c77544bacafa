package dev.peregrine.transport;

import dev.peregrine.Server;
import dev.peregrine.loop.LoopContext;

import java.util.List;

/**
 * How the client module reaches a running {@link Server}'s loops for the in-memory transport
 * ({@link MemoryPipe}) without the server's API naming a loop: {@code server/ServerLaunch}'s class
 * initializer installs the one {@link Slot}, which finds the servers it started.
 *
 * <p>Thread: any.
 */
public final class ServerLoops {
    /** What {@code Server} lends: its listeners' loops. */
    public interface Slot {
        /** The loops of the listener speaking plain HTTP ({@code https} false) or TLS; empty when none or closed. */
        List<LoopContext> loops(Server server, boolean https);
    }

    private static volatile Slot slot;

    private ServerLoops() {
    }

    /** Called by {@code server/ServerLaunch}'s class initializer only. */
    public static void install(Slot serverSlot) {
        if (slot != null) {
            throw new IllegalStateException("already installed");
        }
        slot = serverSlot;
    }

    /** {@code server}'s loops for plain HTTP or for TLS; empty when it serves no such listener or has closed. */
    public static List<LoopContext> of(Server server, boolean https) {
        return slot.loops(server, https); // a Server exists: ServerLaunch started it, so its class initializer has run
    }
}
