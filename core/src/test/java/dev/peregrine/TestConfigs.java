package dev.peregrine;

import dev.peregrine.loop.LoopContext;
import dev.peregrine.route.Router;
import dev.peregrine.server.ServerSetup;

/** Settings for tests that drive loops and connections without starting a server. */
public final class TestConfigs {
    private TestConfigs() {
    }

    /** The settings {@code builder} would start a server with. */
    public static ServerConfig of(Server.Builder builder) {
        return new ServerConfig(builder);
    }

    /**
     * A loop's resources as a server's loop has them (its accepted connections speak HTTP/1.1 to
     * {@code router}), not bound to an {@code EventLoop}: {@code newConnection(socket)} gives a server
     * connection.
     */
    public static LoopContext serverLoop(ServerConfig config, Router router) {
        return new LoopContext(ServerSetup.of(config, router).listener());
    }
}
