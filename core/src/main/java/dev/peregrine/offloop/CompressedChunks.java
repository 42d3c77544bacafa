package dev.peregrine.offloop;

import dev.peregrine.buffer.OutputSink;
import dev.peregrine.compress.engine.Encoder;
import dev.peregrine.exchange.ResponseCompressor;
import dev.peregrine.http1.ChunkFraming;


/**
 * A streamed response body compressed as it goes: each piece the handler produces is compressed and
 * flushed ({@link Encoder#flush()}, a sync flush), and what the encoder gives out leaves as one chunk
 * (RFC 9112 §7.1), so the client can decode every piece as soon as it arrives; the end of the body
 * finishes the coding (its trailer in a last data chunk) before the caller's {@code 0 CRLF CRLF}.
 * Unframed (HTTP/1.0) bodies get the same bytes without chunk lines.
 * <pre>
 *   piece ──encoder.write+flush──&gt; [hex-size CRLF][compressed bytes][CRLF]
 *   end   ──encoder.finish─────&gt;    [hex-size CRLF][trailer bytes][CRLF]   then the caller's last chunk
 * </pre>
 * The encoder is the loop's ({@link ResponseCompressor#startIncremental}), given back at the end or at
 * {@link #release()}.
 *
 * <p>Thread: the owning loop.
 */
final class CompressedChunks {
    private static final byte[] CRLF = {'\r', '\n'};

    private final ResponseCompressor owner;
    private final boolean framed;
    private final byte[] sizeLine = new byte[10];
    private Encoder encoder;

    CompressedChunks(ResponseCompressor owner, Encoder encoder, boolean framed) {
        this.owner = owner;
        this.encoder = encoder;
        this.framed = framed;
    }

    /** Compresses {@code len} bytes of {@code in} and writes everything they gave out as one chunk. */
    void piece(OutputSink sink, byte[] in, int off, int len) {
        encoder.write(in, off, len);
        encoder.flush();
        emit(sink);
    }

    /** Ends the coding and writes its last bytes as a chunk (not the zero-size last chunk); gives the encoder back. */
    void end(OutputSink sink) {
        encoder.finish();
        emit(sink);
        release();
    }

    /** Gives the encoder back to the loop (the body ended or was abandoned). Idempotent. */
    void release() {
        if (encoder != null) {
            owner.endStream(encoder);
            encoder = null;
        }
    }

    private void emit(OutputSink sink) {
        int n = encoder.outLength();
        if (n > 0) {
            if (framed) {
                int s = ChunkFraming.sizeLine(sizeLine, n);
                sink.append(sizeLine, sizeLine.length - s, s);
            }
            sink.append(encoder.out(), 0, n);
            if (framed) {
                sink.append(CRLF, 0, 2);
            }
        }
        encoder.clearOut();
    }
}
