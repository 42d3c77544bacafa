package dev.peregrine.transport.nio;

import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.LoopSetup;
import dev.peregrine.transport.ConnectionLimit;
import dev.peregrine.transport.LoopStarter;
import dev.peregrine.transport.TransportEngine;
import dev.peregrine.transport.TransportServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.util.List;

/**
 * The portable transport: Java NIO selectors, no native code. Each loop binds its own listening
 * socket with {@code SO_REUSEPORT} so the kernel spreads connections; where the option is missing,
 * loop 0 accepts for all and hands connections round-robin to the others through their task queues
 * (the sequence is {@link LoopStarter}'s).
 */
public final class NioTransport implements TransportEngine {
    @Override
    public String name() {
        return "nio";
    }

    /** Whether this platform's NIO sockets offer {@code SO_REUSEPORT}. */
    public static boolean reusePortSupported() {
        try (ServerSocketChannel probe = ServerSocketChannel.open()) {
            return probe.supportedOptions().contains(StandardSocketOptions.SO_REUSEPORT);
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public TransportServer startLoops(LoopSetup setup, int threads) throws IOException {
        return LoopStarter.startLoops(setup, threads, PARTS);
    }

    @Override
    public TransportServer start(LoopSetup setup) throws IOException {
        return LoopStarter.start(setup, reusePortSupported(), PARTS);
    }

    private static final LoopStarter.Parts<ServerSocketChannel, NioEventLoop> PARTS = new LoopStarter.Parts<>() {
        @Override
        public ServerSocketChannel listen(InetSocketAddress at, int backlog, boolean reusePort) throws IOException {
            ServerSocketChannel listener = ServerSocketChannel.open();
            try {
                listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                if (reusePort) {
                    listener.setOption(StandardSocketOptions.SO_REUSEPORT, true);
                }
                listener.bind(at, backlog);
                listener.configureBlocking(false);
                return listener;
            } catch (IOException | RuntimeException e) {
                closeListener(listener);
                throw e;
            }
        }

        @Override
        public int localPort(ServerSocketChannel listener) throws IOException {
            return ((InetSocketAddress) listener.getLocalAddress()).getPort();
        }

        @Override
        public void closeListener(ServerSocketChannel listener) {
            try {
                listener.close();
            } catch (IOException ignored) {
                // reporting the failure that made us close it
            }
        }

        @Override
        public NioEventLoop newLoop(int index, LoopContext ctx, ServerSocketChannel listener, ConnectionLimit limit)
                throws IOException {
            return new NioEventLoop(index, ctx, listener, limit);
        }

        @Override
        public void acceptFor(NioEventLoop first, List<NioEventLoop> loops) {
            first.acceptFor(loops.toArray(new NioEventLoop[0]));
        }

        @Override
        public void start(NioEventLoop loop) {
            loop.start();
        }

        @Override
        public void discard(NioEventLoop loop, boolean started) {
            if (started) {
                loop.beginStop(0);
                loop.awaitTermination(0);
            } else {
                loop.discard();
            }
        }
    };
}
