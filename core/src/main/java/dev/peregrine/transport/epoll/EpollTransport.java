package dev.peregrine.transport.epoll;

import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.LoopSetup;
import dev.peregrine.transport.ConnectionLimit;
import dev.peregrine.transport.LoopStarter;
import dev.peregrine.transport.TransportEngine;
import dev.peregrine.transport.TransportServer;

import java.io.IOException;
import java.net.InetSocketAddress;
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
        requireAvailable();
        return LoopStarter.startLoops(setup, threads, PARTS);
    }

    @Override
    public TransportServer start(LoopSetup setup) throws IOException {
        requireAvailable();
        return LoopStarter.start(setup, true, PARTS);
    }

    private static void requireAvailable() {
        String why = EpollAvailability.unavailabilityReason();
        if (why != null) {
            throw new IllegalStateException("epoll transport unavailable: " + why);
        }
    }

    private static final LoopStarter.Parts<NettyEpoll.Fd, EpollEventLoop> PARTS = new LoopStarter.Parts<>() {
        @Override
        public NettyEpoll.Fd listen(InetSocketAddress at, int backlog, boolean reusePort) throws IOException {
            return NettyEpoll.Fd.listen(at, backlog, reusePort);
        }

        @Override
        public int localPort(NettyEpoll.Fd listener) {
            return listener.localPort();
        }

        @Override
        public void closeListener(NettyEpoll.Fd listener) {
            listener.close();
        }

        @Override
        public EpollEventLoop newLoop(int index, LoopContext ctx, NettyEpoll.Fd listener, ConnectionLimit limit) {
            return new EpollEventLoop(index, ctx, listener, limit);
        }

        @Override
        public void acceptFor(EpollEventLoop first, List<EpollEventLoop> loops) {
            first.acceptFor(loops.toArray(new EpollEventLoop[0]));
        }

        @Override
        public void start(EpollEventLoop loop) throws IOException {
            loop.start();
        }

        @Override
        public void discard(EpollEventLoop loop, boolean started) {
            loop.shutdown(); // ends the loop's thread whether or not it was registered, and frees its memory
        }
    };
}
