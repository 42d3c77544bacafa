package dev.peregrine.compress.engine;

import dev.peregrine.compress.Coding;

import java.io.IOException;

/** Lets tests in other packages decode a whole body with the test-side {@link StreamDecoder}. */
public final class StreamDecoderAccess {
    private StreamDecoderAccess() {
    }

    public static byte[] decode(Coding coding, byte[] body) throws IOException {
        return StreamDecoder.decode(coding, body);
    }
}
