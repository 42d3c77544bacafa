package dev.peregrine.e2e;

import dev.peregrine.BodyListener;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.Consumer;

/**
 * What an upload's body came to, as the upload tests' routes answer it: {@code "<length> <SHA-256 in
 * hex>"}, read from a blocking handler's body stream ({@link #of}) or from a streaming handler's pieces
 * ({@link #listener}).
 */
public final class BodyDigest {
    private BodyDigest() {
    }

    /** Reads {@code in} to its end. */
    public static String of(InputStream in) throws IOException {
        MessageDigest sha = sha256();
        byte[] buf = new byte[16_384];
        long n = 0;
        for (int r; (r = in.read(buf)) > 0; ) {
            sha.update(buf, 0, r);
            n += r;
        }
        return n + " " + HexFormat.of().formatHex(sha.digest());
    }

    /** A listener that hands {@code atEnd} the digest of every piece it was given, once the body ends. */
    public static BodyListener listener(Consumer<String> atEnd) {
        MessageDigest sha = sha256();
        long[] n = new long[1];
        return new BodyListener() {
            @Override
            public void onData(ByteBuffer data) {
                n[0] += data.remaining();
                sha.update(data);
            }

            @Override
            public void onEnd() {
                atEnd.accept(n[0] + " " + HexFormat.of().formatHex(sha.digest()));
            }
        };
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("every JDK has SHA-256", e);
        }
    }
}
