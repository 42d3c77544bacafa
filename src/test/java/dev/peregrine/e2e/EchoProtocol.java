package dev.peregrine.e2e;

import dev.peregrine.loop.Connection;
import dev.peregrine.loop.Protocol;

import java.nio.ByteBuffer;

/**
 * A test protocol for the connection layer: sends back every byte it receives, closes when the peer
 * does. It proves that a connection can be handed, with its unread bytes, from HTTP/1.1 to another
 * protocol (Upgrade, the HTTP/2 preface, ALPN) and that the layer alone carries the rest.
 */
public final class EchoProtocol implements Protocol {
    private static final int IDLE = 1;

    @Override
    public int onInput(Connection c, ByteBuffer buf, int start, int end) {
        int pos = start;
        while (pos < end) {
            ByteBuffer out = c.out();
            if (!out.hasRemaining()) {
                c.flushBatch();
                continue;
            }
            int n = Math.min(out.remaining(), end - pos);
            out.put(out.position(), buf, pos, n);
            out.position(out.position() + n);
            pos += n;
        }
        return end;
    }

    @Override
    public void onInputOverflow(Connection c) {
        c.close();
    }

    @Override
    public void onEndOfInput(Connection c) {
        c.closeOnceWritten();
    }

    @Override
    public int timerPhase() {
        return IDLE;
    }

    @Override
    public long timeoutMillis(int phase) {
        return 60_000;
    }

    @Override
    public void onTimeout(Connection c, int phase) {
        c.close();
    }

    @Override
    public void onShutdown(Connection c) {
        c.closeAfterOutput();
        c.flush();
    }

    @Override
    public void onClosed(Connection c) {
    }
}
