package dev.peregrine.transport.iouring;

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
 * The Linux io_uring transport: one ring per loop thread, each loop with its own listening socket
 * bound with {@code SO_REUSEPORT} (where the setting turns that off and there are several loops, loop
 * 0 accepts for all and hands descriptors round-robin to the others through their task queues).
 * Accepts are multishot ring entries; readiness of connections comes as poll completions from the same
 * ring, and bytes move with {@code recv}/{@code send} into and out of the loop's buffers
 * ({@link NettyIoUring} says what goes through the ring, {@link IoUringEndpoint} how no readiness is lost).
 *
 * <p>Needs {@code netty-transport-native-io_uring} and a kernel that allows io_uring: ask
 * {@link IoUringAvailability} first; {@link #start} fails with the reason where it cannot run.
 */
public final class IoUringTransport implements TransportEngine {
    @Override
    public String name() {
        return "io_uring";
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
        String why = IoUringAvailability.unavailabilityReason();
        if (why != null) {
            throw new IllegalStateException("io_uring transport unavailable: " + why);
        }
    }

    private static final LoopStarter.Parts<NettyIoUring.Fd, IoUringEventLoop> PARTS = new LoopStarter.Parts<>() {
        @Override
        public NettyIoUring.Fd listen(InetSocketAddress at, int backlog, boolean reusePort) throws IOException {
            return NettyIoUring.Fd.listen(at, backlog, reusePort);
        }

        @Override
        public int localPort(NettyIoUring.Fd listener) {
            return listener.localPort();
        }

        @Override
        public void closeListener(NettyIoUring.Fd listener) {
            listener.close();
        }

        @Override
        public IoUringEventLoop newLoop(int index, LoopContext ctx, NettyIoUring.Fd listener, ConnectionLimit limit) {
            return new IoUringEventLoop(index, ctx, listener, limit);
        }

        @Override
        public void acceptFor(IoUringEventLoop first, List<IoUringEventLoop> loops) {
            first.acceptFor(loops.toArray(new IoUringEventLoop[0]));
        }

        @Override
        public void start(IoUringEventLoop loop) throws IOException {
            loop.start();
        }

        @Override
        public void discard(IoUringEventLoop loop, boolean started) {
            loop.shutdown(); // ends the loop's thread whether or not it was registered, and frees its memory
        }
    };
}
