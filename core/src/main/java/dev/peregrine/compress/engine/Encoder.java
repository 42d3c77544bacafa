package dev.peregrine.compress.engine;

import dev.peregrine.compress.Coding;

/**
 * One content coding's compressor, reused for stream after stream. Compressed bytes collect in an
 * output array the encoder owns ({@link #out()}, {@link #outLength()}); the caller copies them out
 * and calls {@link #clearOut()} before the next call that produces more.
 * <pre>
 *   whole body:  begin  write  finish                      (one call each)
 *   streamed:    begin (write* flush)*  write* finish      (flush: everything written so far decodes
 *                                                            at the client; RFC 1950/7932/8878 flush)
 *   any time:    close  (frees native memory; the encoder is not used again)
 * </pre>
 * A stream left unfinished is abandoned by the next {@link #begin()}.
 *
 * <p>Thread: one at a time (the owning loop).
 */
public interface Encoder {
    /** The coding this encoder writes. */
    Coding coding();

    /** Starts a new stream, dropping any unfinished one and any output not yet cleared. */
    void begin();

    /** Compresses {@code len} bytes of {@code in} from {@code off}; output may be held back until a flush. */
    void write(byte[] in, int off, int len);

    /** Emits everything written so far so that the client can decode it now (a sync flush). */
    void flush();

    /** Ends the stream: emits what is held back and the coding's trailer. */
    void finish();

    /** The array holding the output; valid up to {@link #outLength()} until the next call. */
    byte[] out();

    /** Bytes of output in {@link #out()}, from 0. */
    int outLength();

    /** Forgets the output the caller has taken. */
    void clearOut();

    /** Frees what the encoder holds (native memory). Idempotent. */
    void close();
}
