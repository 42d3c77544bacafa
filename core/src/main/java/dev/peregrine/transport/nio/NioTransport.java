package dev.peregrine.transport.nio;

import dev.peregrine.ServerConfig;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.LoopSetup;
import dev.peregrine.transport.ConnectionLimit;
import dev.peregrine.transport.TransportEngine;
import dev.peregrine.transport.LoopGroup;
import dev.peregrine.transport.TransportServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The portable transport: Java NIO selectors, no native code. Each loop binds its own listening
 * socket with {@code SO_REUSEPORT} so the kernel spreads connections; where the option is missing,
 * loop 0 accepts for all and hands connections round-robin to the others through their task queues.
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
        NioEventLoop[] loops = new NioEventLoop[threads];
        ConnectionLimit none = new ConnectionLimit(Integer.MAX_VALUE, threads);
        for (int i = 0; i < threads; i++) {
            loops[i] = new NioEventLoop(i, new LoopContext(setup), null, none);
        }
        for (NioEventLoop loop : loops) {
            loop.start();
        }
        return new LoopGroup(loops, -1);
    }

    @Override
    public TransportServer start(LoopSetup setup) throws IOException {
        ServerConfig config = setup.config();
        int n = config.threads();
        boolean reusePort = n > 1 && config.reusePort() && reusePortSupported();
        NioEventLoop[] loops = new NioEventLoop[n];
        ConnectionLimit limit = new ConnectionLimit(config.maxConnections(), n);
        List<ServerSocketChannel> opened = new ArrayList<>();
        try {
            InetSocketAddress requested = new InetSocketAddress(config.host(), setup.port());
            int port = -1;
            for (int i = 0; i < n; i++) {
                ServerSocketChannel listener = null;
                if (i == 0 || reusePort) {
                    listener = ServerSocketChannel.open();
                    opened.add(listener);
                    listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                    if (reusePort) {
                        listener.setOption(StandardSocketOptions.SO_REUSEPORT, true);
                    }
                    listener.bind(i == 0 ? requested : new InetSocketAddress(requested.getAddress(), port), config.backlog());
                    listener.configureBlocking(false);
                    if (i == 0) {
                        port = ((InetSocketAddress) listener.getLocalAddress()).getPort();
                    }
                }
                loops[i] = new NioEventLoop(i, new LoopContext(setup), listener, limit);
            }
            if (!reusePort && n > 1) {
                loops[0].acceptFor(loops);
            }
            for (NioEventLoop loop : loops) {
                loop.start();
            }
            return new LoopGroup(loops, port);
        } catch (IOException | RuntimeException e) {
            for (ServerSocketChannel c : opened) {
                try {
                    c.close();
                } catch (IOException ignored) {
                    // reporting the first failure
                }
            }
            throw e;
        }
    }
}
