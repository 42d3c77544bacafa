package dev.peregrine.transport;

import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.LoopSetup;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.Supplier;

/**
 * A native Linux transport (epoll, io_uring): one {@link NativeEventLoop} per thread, each with its own
 * listening socket bound with {@code SO_REUSEPORT} so that the kernel spreads connections (where the
 * setting turns that off and there are several loops, loop 0 accepts for all and hands descriptors
 * round-robin to the others through their task queues; the sequence is {@link LoopStarter}'s). What
 * differs between the two is their {@link NativeIo}; {@code epoll.EpollTransport} and
 * {@code iouring.IoUringTransport} make the engine.
 *
 * <p>Thread: the thread starting the server.
 */
public final class NativeTransport implements TransportEngine {
    private final String name;
    private final Supplier<String> unavailable;
    private final LoopStarter.Parts<NativeIo.Listener, NativeEventLoop> parts;

    /**
     * @param name        the transport's name ({@code Transport.id()})
     * @param unavailable null when the transport can run here, else why not
     * @param listen      binds a listening socket of this transport
     * @param maker       makes one loop's native side
     */
    public NativeTransport(String name, Supplier<String> unavailable, NativeIo.Listen listen, NativeIo.Maker maker) {
        this.name = name;
        this.unavailable = unavailable;
        this.parts = new Parts(name, listen, maker);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public TransportServer startLoops(LoopSetup setup, int threads) throws IOException {
        requireAvailable();
        return LoopStarter.startLoops(setup, threads, parts);
    }

    @Override
    public TransportServer start(LoopSetup setup) throws IOException {
        requireAvailable();
        return LoopStarter.start(setup, true, parts);
    }

    private void requireAvailable() {
        String why = unavailable.get();
        if (why != null) {
            throw new IllegalStateException(name + " transport unavailable: " + why);
        }
    }

    private static final class Parts implements LoopStarter.Parts<NativeIo.Listener, NativeEventLoop> {
        private final String name;
        private final NativeIo.Listen listen;
        private final NativeIo.Maker maker;

        Parts(String name, NativeIo.Listen listen, NativeIo.Maker maker) {
            this.name = name;
            this.listen = listen;
            this.maker = maker;
        }

        @Override
        public NativeIo.Listener listen(InetSocketAddress at, int backlog, boolean reusePort) throws IOException {
            return listen.listen(at, backlog, reusePort);
        }

        @Override
        public int localPort(NativeIo.Listener listener) {
            return listener.localPort();
        }

        @Override
        public void closeListener(NativeIo.Listener listener) {
            listener.close();
        }

        @Override
        public NativeEventLoop newLoop(int index, LoopContext ctx, NativeIo.Listener listener, ConnectionLimit limit) {
            return new NativeEventLoop(index, ctx, listener, limit, name, maker);
        }

        @Override
        public void acceptFor(NativeEventLoop first, List<NativeEventLoop> loops) {
            first.acceptFor(loops.toArray(new NativeEventLoop[0]));
        }

        @Override
        public void start(NativeEventLoop loop) throws IOException {
            loop.start();
        }

        @Override
        public void discard(NativeEventLoop loop, boolean started) {
            loop.shutdown(); // ends the loop's thread whether or not it was registered, and frees its memory
        }
    }
}
