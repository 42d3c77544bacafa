package dev.peregrine.transport.epoll;

import dev.peregrine.ServerConfig;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.LoopSetup;
import dev.peregrine.transport.ConnectionLimit;
import dev.peregrine.transport.TransportEngine;
import dev.peregrine.transport.LoopGroup;
import dev.peregrine.transport.TransportServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The Linux transport: one epoll loop per thread, each with its own listening socket bound with
 * {@code SO_REUSEPORT} so the kernel spreads connections (where the setting turns that off and
 * there are several loops, loop 0 accepts for all and hands descriptors round-robin to the others
 * through their task queues). Sockets are edge-triggered; {@link EpollEndpoint} explains how no
 * readiness is lost.
 *
 * <p>Needs {@code netty-transport-native-epoll} and its native library: ask
 * {@link EpollAvailability} first; {@link #start} fails with the reason where it cannot run.
 */
public final class EpollTransport implements TransportEngine {
    @Override
    public String name() {
        return "epoll";
    }

    @Override
    public TransportServer startLoops(LoopSetup setup, int threads) throws IOException {
        String why = EpollAvailability.unavailabilityReason();
        if (why != null) {
            throw new IllegalStateException("epoll transport unavailable: " + why);
        }
        EpollEventLoop[] loops = new EpollEventLoop[threads];
        ConnectionLimit none = new ConnectionLimit(Integer.MAX_VALUE, threads);
        for (int i = 0; i < threads; i++) {
            loops[i] = new EpollEventLoop(i, new LoopContext(setup), null, none);
        }
        for (EpollEventLoop loop : loops) {
            loop.start();
        }
        return new LoopGroup(loops, -1);
    }

    @Override
    public TransportServer start(LoopSetup setup) throws IOException {
        ServerConfig config = setup.config();
        String why = EpollAvailability.unavailabilityReason();
        if (why != null) {
            throw new IllegalStateException("epoll transport unavailable: " + why);
        }
        int n = config.threads();
        boolean reusePort = n > 1 && config.reusePort();
        EpollEventLoop[] loops = new EpollEventLoop[n];
        ConnectionLimit limit = new ConnectionLimit(config.maxConnections(), n);
        List<NettyEpoll.Fd> listeners = new ArrayList<>();
        try {
            InetSocketAddress requested = new InetSocketAddress(config.host(), setup.port());
            int port = -1;
            for (int i = 0; i < n; i++) {
                NettyEpoll.Fd listener = null;
                if (i == 0 || reusePort) {
                    InetSocketAddress at = i == 0 ? requested : new InetSocketAddress(requested.getAddress(), port);
                    listener = NettyEpoll.Fd.listen(at, config.backlog(), reusePort);
                    listeners.add(listener);
                    if (i == 0) {
                        port = listener.localPort();
                    }
                }
                loops[i] = new EpollEventLoop(i, new LoopContext(setup), listener, limit);
            }
            if (!reusePort && n > 1) {
                loops[0].acceptFor(loops);
            }
            for (EpollEventLoop loop : loops) {
                loop.start();
            }
            return new LoopGroup(loops, port);
        } catch (IOException | RuntimeException e) {
            for (NettyEpoll.Fd l : listeners) {
                l.close();
            }
            for (EpollEventLoop loop : loops) {
                if (loop != null) {
                    loop.shutdown();
                }
            }
            throw e;
        }
    }
}
