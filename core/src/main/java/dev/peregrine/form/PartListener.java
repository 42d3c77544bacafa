package dev.peregrine.form;

import java.nio.ByteBuffer;

/**
 * Receives the parts of a multipart body from {@link MultipartParser} as they arrive: for each part,
 * {@link #onPartStart} once, {@link #onPartData} for each piece (possibly none), {@link #onPartEnd}
 * once. A part's data arrives whole only through all its pieces.
 *
 * <p>Thread: the thread feeding the parser. An exception thrown here ends the parse and reaches the
 * caller of {@link MultipartParser#feed}.
 */
public interface PartListener {
    /** A part begins; {@code headers} stays valid (it is the listener's to keep). */
    void onPartStart(PartHeaders headers) throws Exception;

    /** Bytes of the current part: a view valid only during this call (copy what you keep). */
    void onPartData(ByteBuffer data) throws Exception;

    /** The current part ended at its boundary. */
    void onPartEnd() throws Exception;
}
