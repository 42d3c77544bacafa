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
     * {@code router}), bound to a {@link TaskLoop} the test drives: {@code newConnection(socket)} gives a
     * server connection.
     */
    public static LoopContext serverLoop(ServerConfig config, Router router) {
        LoopContext ctx = unboundServerLoop(config, router);
        ctx.bind(new TaskLoop());
        return ctx;
    }

    /** {@link #serverLoop}'s context before a loop is bound: for a test that runs a real loop over it. */
    public static LoopContext unboundServerLoop(ServerConfig config, Router router) {
        return new LoopContext(ServerSetup.of(config, router).listener());
    }

    /**
     * The loop of a context driven by a test on its own thread: tasks wait until {@link #runTasks}
     * (the harness runs them before each new connection, as a loop runs its tasks between events), so
     * closed connections are recycled into the next ones as on a real loop.
     */
    public static final class TaskLoop implements dev.peregrine.loop.EventLoop {
        private final java.util.ArrayDeque<Runnable> tasks = new java.util.ArrayDeque<>();

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
        }

        @Override
        public boolean inEventLoop() {
            return true;
        }

        @Override
        public void connect(java.net.InetSocketAddress address, dev.peregrine.loop.EndpointLayer layer,
                            dev.peregrine.loop.Protocol protocol, long timeoutMillis, dev.peregrine.loop.ConnectCallback callback) {
            throw new UnsupportedOperationException("no outbound connections from a test loop");
        }

        /** Runs the tasks queued so far, and those they queue. */
        public void runTasks() {
            Runnable t;
            while ((t = tasks.poll()) != null) {
                t.run();
            }
        }
    }
}
