package dev.peregrine.compress.engine;

import dev.peregrine.compress.Coding;

import com.aayushatharva.brotli4j.encoder.Encoder.Mode;
import com.aayushatharva.brotli4j.encoder.EncoderJNI;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * br (RFC 7932) through Brotli4j's JNI encoder. Brotli's native encoder cannot be reset, so each
 * {@link #begin()} creates one (its native state and an input buffer of {@link #INPUT} bytes) and
 * {@link #finish()} frees it: a br response allocates that much, unlike gzip and zstd. Input is
 * copied into the encoder's native buffer and pushed when it is full or at a flush or finish:
 * <pre>
 *   push(op, n) -&gt; while output waits: pull (copied to out) | while input remains: push(op, 0)
 *               -&gt; FINISH also until isFinished
 * </pre>
 * Load only after {@link NativeCodecs#brotli()} said yes.
 *
 * <p>Thread: one at a time.
 */
public final class BrotliEncoder extends OutputArray {
    /** Bytes of input the native encoder takes per push. */
    static final int INPUT = 16 * 1024;

    private final int quality;
    private final int window;
    private EncoderJNI.Wrapper encoder;
    private ByteBuffer input;

    /** An encoder at {@code quality} (0 to 11) with a window of 2^{@code window} bytes (10 to 24). */
    public BrotliEncoder(int quality, int window) {
        this.quality = quality;
        this.window = window;
    }

    @Override
    public Coding coding() {
        return Coding.BR;
    }

    @Override
    public void begin() {
        close();
        length = 0;
        try {
            encoder = new EncoderJNI.Wrapper(INPUT, quality, window, Mode.GENERIC);
        } catch (IOException e) {
            throw new UncheckedIOException("brotli encoder could not be created", e);
        }
        input = encoder.getInputBuffer();
        input.clear();
    }

    @Override
    public void write(byte[] in, int off, int len) {
        while (len > 0) {
            int n = Math.min(len, input.remaining());
            input.put(in, off, n);
            off += n;
            len -= n;
            if (!input.hasRemaining()) {
                push(EncoderJNI.Operation.PROCESS);
            }
        }
    }

    @Override
    public void flush() {
        push(EncoderJNI.Operation.FLUSH);
    }

    @Override
    public void finish() {
        push(EncoderJNI.Operation.FINISH);
        close();
    }

    private void push(EncoderJNI.Operation op) {
        encoder.push(op, input.position());
        while (true) {
            if (!encoder.isSuccess()) {
                throw new IllegalStateException("brotli encoder failed");
            }
            if (encoder.hasMoreOutput()) {
                ByteBuffer b = encoder.pull();
                int n = b.remaining();
                ensureRoom(n);
                b.get(out, length, n);
                length += n;
            } else if (encoder.hasRemainingInput()) {
                encoder.push(op, 0);
            } else if (op == EncoderJNI.Operation.FINISH && !encoder.isFinished()) {
                encoder.push(op, 0);
            } else {
                break;
            }
        }
        input.clear();
    }

    @Override
    public void close() {
        if (encoder != null) {
            encoder.destroy();
            encoder = null;
            input = null;
        }
    }
}
