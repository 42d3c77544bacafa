package dev.peregrine.exchange;

import java.io.InputStream;
import java.nio.ByteBuffer;

/** A body held in memory, read as a stream ({@code req.bodyStream()} when the body is not streamed). Thread: one. */
final class BodyInputStream extends InputStream {
    private final ByteBuffer body;

    BodyInputStream(ByteBuffer view) {
        body = view.duplicate();
    }

    @Override
    public int read() {
        return body.hasRemaining() ? body.get() & 0xFF : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        if (len == 0) {
            return 0;
        }
        if (!body.hasRemaining()) {
            return -1;
        }
        int n = Math.min(len, body.remaining());
        body.get(b, off, n);
        return n;
    }

    @Override
    public int available() {
        return body.remaining();
    }
}
