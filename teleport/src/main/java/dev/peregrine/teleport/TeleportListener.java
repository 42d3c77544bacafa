package dev.peregrine.teleport;

import dev.peregrine.loop.LoopSetup;
import dev.peregrine.server.AddedListener;
import dev.peregrine.server.ServerSetup;

/**
 * What {@code Server.Builder.teleport(port)} starts: a listener whose loops speak teleport
 * ({@link TeleportLoop}, {@link TeleportServerProtocol}) over the server's own routes and settings.
 * Core finds it by name ({@link AddedListener#TELEPORT}); it is not meant to be called otherwise.
 *
 * <p>Thread: any (stateless).
 */
public final class TeleportListener implements AddedListener {
    /** Requests a teleport server connection accepts in flight (stated in its hello). */
    public static final int MAX_IN_FLIGHT = 65_536;

    @Override
    public LoopSetup listener(ServerSetup setup, int port, dev.peregrine.loop.EndpointLayer layer) {
        return new LoopSetup(ServerSetup.loopConfig(setup.config()), port, layer, ctx -> new TeleportLoop(ctx, setup, MAX_IN_FLIGHT));
    }
}
