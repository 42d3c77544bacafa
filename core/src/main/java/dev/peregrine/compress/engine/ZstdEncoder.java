package dev.peregrine.compress.engine;

import dev.peregrine.compress.Coding;

import com.github.luben.zstd.EndDirective;
import com.github.luben.zstd.ZstdCompressCtx;

import java.nio.ByteBuffer;

/**
 * zstd (RFC 8878) through one zstd-jni {@link ZstdCompressCtx}, reset for every stream. A whole body
 * ({@code begin write finish} with nothing flushed between) is one {@code ZSTD_compress2} call
 * straight into the output array: no allocation once the array has grown. A streamed body goes
 * through {@code ZSTD_compressStream2} ({@link #flush()}: {@code ZSTD_e_flush}, so every block
 * written so far is complete). Load only after {@link NativeCodecs#zstd()} said yes.
 *
 * <p>Thread: one at a time.
 */
public final class ZstdEncoder extends OutputArray {
    private final int level;
    private final ZstdCompressCtx ctx = new ZstdCompressCtx();
    /** Input held until we know whether the body is whole (finish) or streamed (flush). */
    private byte[] pending = new byte[8192];
    private int pendingLength;
    private boolean streaming;
    private boolean closed;

    /** An encoder at {@code level} (1 to 19). */
    public ZstdEncoder(int level) {
        this.level = level;
        ctx.setLevel(level);
    }

    @Override
    public Coding coding() {
        return Coding.ZSTD;
    }

    @Override
    public void begin() {
        ctx.reset();
        ctx.setLevel(level);
        length = 0;
        pendingLength = 0;
        streaming = false;
    }

    @Override
    public void write(byte[] in, int off, int len) {
        if (streaming) {
            stream(in, off, len, EndDirective.CONTINUE);
            return;
        }
        if (pending.length - pendingLength < len) {
            pending = java.util.Arrays.copyOf(pending, Math.max(pendingLength + len, pending.length * 2));
        }
        System.arraycopy(in, off, pending, pendingLength, len);
        pendingLength += len;
    }

    @Override
    public void flush() {
        startStreaming();
        stream(pending, 0, 0, EndDirective.FLUSH);
    }

    @Override
    public void finish() {
        if (streaming) {
            stream(pending, 0, 0, EndDirective.END);
            return;
        }
        int bound = (int) com.github.luben.zstd.Zstd.compressBound(pendingLength);
        ensureRoom(bound);
        length += ctx.compressByteArray(out, length, out.length - length, pending, 0, pendingLength);
        pendingLength = 0;
    }

    private void startStreaming() {
        if (!streaming) {
            streaming = true;
            int n = pendingLength;
            pendingLength = 0;
            stream(pending, 0, n, EndDirective.CONTINUE);
        }
    }

    /** Feeds {@code in} to the stream with {@code op}, until it is consumed and (for FLUSH/END) done. */
    private void stream(byte[] in, int off, int len, EndDirective op) {
        ByteBuffer src = ByteBuffer.wrap(in, off, len);
        while (true) {
            ensureRoom(16 * 1024);
            ByteBuffer dst = ByteBuffer.wrap(out, length, out.length - length);
            boolean done = ctx.compressByteBufferStream(dst, src, op);
            length = dst.position();
            if (!src.hasRemaining() && (op == EndDirective.CONTINUE || done)) {
                return;
            }
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            ctx.close();
        }
    }
}
