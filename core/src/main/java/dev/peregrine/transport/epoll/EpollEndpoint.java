package dev.peregrine.transport.epoll;

import dev.peregrine.loop.Connection;
import dev.peregrine.loop.SocketEndpoint;
import dev.peregrine.transport.ConnectionLimit;
import dev.peregrine.transport.NativeEndpoint;
import dev.peregrine.transport.NativeEventLoop;
import dev.peregrine.transport.NettyLoop;
import dev.peregrine.transport.PeerAddress;
import dev.peregrine.transport.ReadPump;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * One connection on an epoll {@link NativeEventLoop}: the {@link SocketEndpoint} its {@link Connection}
 * talks to, and the receiver of the socket's epoll events.
 *
 * <p><b>Edge-triggered input.</b> epoll reports "readable" once per change, not while bytes wait, so
 * the endpoint's {@link ReadPump} remembers it until a read is shorter than asked, {@code EAGAIN} or
 * end of stream, and pumps {@link Connection#onReadable()} while it is set (its javadoc draws how).
 * Turning read interest off does not touch epoll: while a connection is paused the kernel reports at
 * most one event per arrival (edge-triggered), which only sets the readiness, and the peer soon stops
 * sending as its window fills. {@code EPOLLOUT} is armed only while output is pending; an event with
 * it calls {@code onWritable()} first, and if that lifted backpressure, the pump that follows reads.
 *
 * <p>Thread: the owning loop only.
 */
final class EpollEndpoint implements NativeEndpoint {
    private final NettyLoop loop;
    private final NettyEpoll.Fd fd;
    /** The peer's address, made at the first {@link #remoteAddress()} when {@link #packedRemote} holds it. */
    private InetSocketAddress remote;
    /** The peer's IPv4 address and port ({@link PeerAddress}), or {@link PeerAddress#NONE}: {@link #remote} is it. */
    private final long packedRemote;
    private final ConnectionLimit limit;
    private final ReadPump pump;
    private final NativeEventLoop owner;
    private boolean writing;

    /** Takes over {@code fd}, whose slot in {@code limit} is released when it closes. */
    EpollEndpoint(NativeEventLoop owner, NettyLoop loop, NettyEpoll.Fd fd, InetSocketAddress remote, ConnectionLimit limit) {
        this.owner = owner;
        this.loop = loop;
        this.fd = fd;
        this.packedRemote = PeerAddress.pack(remote);
        this.remote = packedRemote == PeerAddress.NONE ? remote : null; // an idle connection keeps 8 bytes, not 96
        this.limit = limit;
        this.pump = new ReadPump(this);
    }

    @Override
    public ReadPump pump() {
        return pump;
    }

    @Override
    public NativeEventLoop owner() {
        return owner;
    }

    @Override
    public void register() throws IOException {
        fd.register(loop, this);
    }

    @Override
    public void ready(boolean in, boolean out, boolean hangup) {
        pump.event(out && writing, in, hangup);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return pump.read(dst); // a short read: the kernel has nothing more now, a new arrival raises a new edge
    }

    @Override
    public int readSocket(ByteBuffer dst) throws IOException {
        return fd.read(dst);
    }

    /** Edge-triggered: the next arrival raises a new event; nothing to arm. */
    @Override
    public void readDrained() {
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return fd.write(src);
    }

    /**
     * {@code sendfile(2)} from the file's own descriptor (a shared cached file's, for a
     * {@link SocketEndpoint.FileView}). Edge-triggered writability: when this returns less than asked
     * the caller arms {@code EPOLLOUT} ({@link #writeInterest}), and {@code epoll_ctl} reports the socket
     * writable at once if it already is, so no edge is lost between the short send and the arming.
     */
    @Override
    public long transferFile(FileChannel file, long position, long count) throws IOException {
        long n = fd.sendFile(file, position, count);
        if (n > 0) {
            owner.context().metrics().sendfileBytes += n;
        }
        return n;
    }

    @Override
    public void readInterest(boolean on) {
        pump.readInterest(on);
    }

    @Override
    public void writeInterest(boolean on) {
        writing = on;
        fd.writeInterest(on);
    }

    @Override
    public void shutdownOutput() {
        fd.shutdownOutput();
    }

    @Override
    public void close() {
        if (pump.closed()) {
            return;
        }
        pump.close();
        fd.close();
        owner.unlink(pump);
        limit.release();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        if (remote == null) {
            remote = PeerAddress.unpack(packedRemote);
        }
        return remote;
    }
}
