package dev.peregrine.transport;

import dev.peregrine.loop.LoopConfig;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.LoopSetup;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * How a transport starts its loops, written once for NIO and epoll. A transport supplies its
 * {@link Parts}: how to open a listening socket and how to make, start and discard one of its loops.
 *
 * <pre>
 *   for each loop i:  listener = (i == 0 || reusePort) ? listen(host:port, SO_REUSEPORT?) : none
 *                     (loop 0 binds the requested port, possibly 0; the others bind the port it got)
 *                     loop i = newLoop(i, its own LoopContext, listener, the shared ConnectionLimit)
 *   several loops and no SO_REUSEPORT: loop 0 accepts for all and hands connections round-robin
 *   start every loop
 *   any failure: close every listener opened, discard every loop made (started or not), rethrow
 * </pre>
 *
 * <p>Thread: the thread starting the server.
 */
public final class LoopStarter {
    private LoopStarter() {
    }

    /**
     * One transport's socket and loop operations.
     *
     * @param <F> the transport's listening socket
     * @param <L> the transport's loop
     */
    public interface Parts<F, L extends TransportLoop> {
        /** Binds a listening socket at {@code at}, with {@code SO_REUSEPORT} when asked. */
        F listen(InetSocketAddress at, int backlog, boolean reusePort) throws IOException;

        /** The port {@code listener} is bound to. */
        int localPort(F listener) throws IOException;

        /** Closes a listener that no loop will own. */
        void closeListener(F listener);

        /** Makes loop {@code index}, accepting on {@code listener} (null: it accepts nothing itself). */
        L newLoop(int index, LoopContext ctx, F listener, ConnectionLimit limit) throws IOException;

        /** Makes {@code first} accept for all of {@code loops}. Before start. */
        void acceptFor(L first, List<L> loops);

        /** Starts the loop's thread (or registration). */
        void start(L loop) throws IOException;

        /** Frees a loop after a failed start: its thread, selector and pooled memory. */
        void discard(L loop, boolean started);
    }

    /** Binds {@code setup}'s host and port and starts {@code config.threads()} loops on them. */
    public static <F, L extends TransportLoop> TransportServer start(LoopSetup setup, boolean reusePortSupported,
                                                                     Parts<F, L> parts) throws IOException {
        LoopConfig config = setup.config();
        int n = config.threads();
        boolean reusePort = n > 1 && config.reusePort() && reusePortSupported;
        return run(setup, n, new ConnectionLimit(config.maxConnections(), n), parts, (i, port) -> {
            if (i > 0 && !reusePort) {
                return null;
            }
            InetSocketAddress requested = new InetSocketAddress(config.host(), setup.port());
            InetSocketAddress at = i == 0 ? requested : new InetSocketAddress(requested.getAddress(), port);
            return parts.listen(at, config.backlog(), reusePort);
        });
    }

    /** Starts {@code threads} loops that listen on nothing (outbound connections only). */
    public static <F, L extends TransportLoop> TransportServer startLoops(LoopSetup setup, int threads,
                                                                          Parts<F, L> parts) throws IOException {
        return run(setup, threads, new ConnectionLimit(Integer.MAX_VALUE, threads), parts, (i, port) -> null);
    }

    private interface Listening<F> {
        /** The listener for loop {@code i} given loop 0's bound port, or null. */
        F open(int i, int port) throws IOException;
    }

    private static <F, L extends TransportLoop> TransportServer run(LoopSetup setup, int n, ConnectionLimit limit,
                                                                    Parts<F, L> parts, Listening<F> listening) throws IOException {
        List<F> listeners = new ArrayList<>();
        List<L> loops = new ArrayList<>(n);
        int started = 0;
        try {
            int port = -1;
            for (int i = 0; i < n; i++) {
                F listener = listening.open(i, port);
                if (listener != null) {
                    listeners.add(listener);
                    if (i == 0) {
                        port = parts.localPort(listener);
                    }
                }
                loops.add(parts.newLoop(i, new LoopContext(setup), listener, limit));
            }
            if (n > 1 && listeners.size() == 1) {
                parts.acceptFor(loops.get(0), loops);
            }
            for (L loop : loops) {
                parts.start(loop);
                started++;
            }
            return new LoopGroup(loops.toArray(new TransportLoop[0]), port);
        } catch (IOException | RuntimeException e) {
            for (F listener : listeners) {
                parts.closeListener(listener);
            }
            for (int i = 0; i < loops.size(); i++) {
                parts.discard(loops.get(i), i < started);
            }
            throw e;
        }
    }
}
