package dev.peregrine.transport;

import dev.peregrine.loop.LoopContext;

import java.util.ArrayList;
import java.util.List;

/** The running loops of one transport bound to one port: the {@link TransportServer} both transports return. */
public final class LoopGroup implements TransportServer {
    private final TransportLoop[] loops;
    private final int port;

    public LoopGroup(TransportLoop[] loops, int port) {
        this.loops = loops.clone();
        this.port = port;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public List<LoopContext> loops() {
        List<LoopContext> list = new ArrayList<>(loops.length);
        for (TransportLoop l : loops) {
            list.add(l.context());
        }
        return list;
    }

    // Every loop begins stopping before any is waited for, so that the grace runs in parallel.
    @Override
    public void beginStop(long graceMillis) {
        for (TransportLoop l : loops) {
            l.beginStop(graceMillis);
        }
    }

    @Override
    public void awaitTermination(long graceMillis) {
        for (TransportLoop l : loops) {
            l.awaitTermination(graceMillis);
        }
    }
}
