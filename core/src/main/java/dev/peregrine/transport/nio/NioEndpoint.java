package dev.peregrine.transport.nio;

import dev.peregrine.loop.Connection;
import dev.peregrine.loop.SocketEndpoint;
import dev.peregrine.transport.ConnectionLimit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/** A {@link SocketChannel} registered with a loop's selector. Thread: the owning loop. */
final class NioEndpoint implements SocketEndpoint {
    private final SocketChannel channel;
    private final SelectionKey key;
    private final InetSocketAddress remote;
    private final ConnectionLimit limit;
    private boolean closed;
    Connection connection;

    /** Takes over {@code channel}, whose slot in {@code limit} is released when it closes. */
    NioEndpoint(SocketChannel channel, SelectionKey key, ConnectionLimit limit) throws IOException {
        this.channel = channel;
        this.key = key;
        this.limit = limit;
        // null for a Unix domain socket (the client's connectUnix): its peer has no IP address
        this.remote = channel.getRemoteAddress() instanceof InetSocketAddress ? (InetSocketAddress) channel.getRemoteAddress() : null;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return channel.read(dst);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return channel.write(src);
    }

    @Override
    public long transferFile(FileChannel file, long position, long count) throws IOException {
        long n = file.transferTo(position, count, channel); // sendfile(2) inside the JDK
        if (n > 0 && connection != null) {
            connection.context().metrics().sendfileBytes += n;
        }
        return n;
    }

    @Override
    public void readInterest(boolean on) {
        if (key.isValid()) {
            int ops = key.interestOps();
            key.interestOps(on ? ops | SelectionKey.OP_READ : ops & ~SelectionKey.OP_READ);
        }
    }

    @Override
    public void writeInterest(boolean on) {
        if (key.isValid()) {
            int ops = key.interestOps();
            int next = on ? ops | SelectionKey.OP_WRITE : ops & ~SelectionKey.OP_WRITE;
            if (next != ops) {
                key.interestOps(next);
            }
        }
    }

    @Override
    public void shutdownOutput() {
        try {
            channel.shutdownOutput();
        } catch (IOException e) {
            // the peer is gone; the close that follows cleans up
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        limit.release();
        key.cancel();
        try {
            channel.close();
        } catch (IOException e) {
            // nothing to do: the descriptor is released either way
        }
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }
}
