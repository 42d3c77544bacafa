package dev.peregrine.compress.engine;

import dev.peregrine.compress.Coding;

import com.aayushatharva.brotli4j.decoder.DecoderJNI;
import com.github.luben.zstd.ZstdDecompressCtx;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * A test-side decoder fed compressed bytes in pieces, handing out every byte it can decode from what
 * it has so far: proof that a flushed stream is decodable at each flush. Independent of the encoders
 * (java.util.zip's Inflater, Brotli's and zstd's own decoders).
 */
final class StreamDecoder {
    private final Coding coding;
    private final Inflater inflater;
    private int gzipHeaderLeft = 10;
    private DecoderJNI.Wrapper brotli;
    private ZstdDecompressCtx zstd;
    private boolean done;

    StreamDecoder(Coding coding) throws IOException {
        this.coding = coding;
        this.inflater = coding == Coding.GZIP ? new Inflater(true) : coding == Coding.DEFLATE ? new Inflater() : null;
        if (coding == Coding.BR) {
            brotli = new DecoderJNI.Wrapper(64 * 1024);
        } else if (coding == Coding.ZSTD) {
            zstd = new ZstdDecompressCtx();
        }
    }

    /** Whether the coding's end was seen. */
    boolean done() {
        return done;
    }

    /** Decodes what {@code piece} makes decodable. */
    byte[] feed(byte[] piece, int off, int len) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        switch (coding) {
            case GZIP:
            case DEFLATE: {
                if (coding == Coding.GZIP) {
                    int skip = Math.min(gzipHeaderLeft, len);
                    gzipHeaderLeft -= skip;
                    off += skip;
                    len -= skip;
                }
                if (inflater.finished()) {
                    return new byte[0]; // gzip trailer
                }
                inflater.setInput(piece, off, len);
                byte[] buf = new byte[64 * 1024];
                try {
                    while (!inflater.finished()) {
                        int n = inflater.inflate(buf);
                        out.write(buf, 0, n);
                        if (n == 0 && inflater.needsInput()) {
                            break;
                        }
                    }
                } catch (DataFormatException e) {
                    throw new IOException(e);
                }
                done = inflater.finished();
                break;
            }
            case BR:
                while (len > 0) {
                    ByteBuffer in = brotli.getInputBuffer();
                    in.clear();
                    int n = Math.min(len, in.remaining());
                    in.put(piece, off, n);
                    off += n;
                    len -= n;
                    brotli.push(n);
                    loop:
                    while (true) {
                        switch (brotli.getStatus()) {
                            case OK:
                                brotli.push(0);
                                break;
                            case NEEDS_MORE_OUTPUT:
                            case DONE:
                                if (brotli.hasOutput()) {
                                    ByteBuffer o = brotli.pull();
                                    byte[] a = new byte[o.remaining()];
                                    o.get(a);
                                    out.write(a);
                                } else if (brotli.getStatus() == DecoderJNI.Status.DONE) {
                                    done = true;
                                    break loop;
                                }
                                break;
                            case NEEDS_MORE_INPUT:
                                if (brotli.hasOutput()) {
                                    ByteBuffer o = brotli.pull();
                                    byte[] a = new byte[o.remaining()];
                                    o.get(a);
                                    out.write(a);
                                }
                                break loop;
                            default:
                                throw new IOException("brotli: corrupt input");
                        }
                    }
                }
                break;
            case ZSTD: {
                ByteBuffer src = ByteBuffer.wrap(piece, off, len);
                byte[] buf = new byte[64 * 1024];
                while (true) {
                    ByteBuffer dst = ByteBuffer.wrap(buf);
                    boolean frameDone = zstd.decompressByteBufferStream(dst, src);
                    out.write(buf, 0, dst.position());
                    if (frameDone) {
                        done = true;
                    }
                    if (!src.hasRemaining() && dst.position() < buf.length) {
                        break;
                    }
                }
                break;
            }
            default:
                throw new IllegalArgumentException();
        }
        return out.toByteArray();
    }

    /** Decodes a whole body. */
    static byte[] decode(Coding coding, byte[] body) throws IOException {
        StreamDecoder d = new StreamDecoder(coding);
        byte[] out = d.feed(body, 0, body.length);
        if (!d.done()) {
            throw new IOException(coding + ": stream not ended");
        }
        return out;
    }
}
