package dev.peregrine.exchange;

import dev.peregrine.buffer.HttpTokens;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** The {@code String} copies {@link RequestView}'s getters make of request bytes. Thread: any (static). */
final class RequestText {
    private RequestText() {
    }

    /** Bytes {@code [start, end)} as ISO-8859-1 (one char a byte, as they arrived). Allocates. */
    static String ascii(ByteBuffer b, int start, int end) {
        byte[] bytes = new byte[end - start];
        b.get(start, bytes);
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    /**
     * Bytes {@code [start, end)} percent-decoded and read as UTF-8 (a path segment: {@code +} stays
     * {@code +}; a {@code %} not followed by two hex digits stays as it is). Allocates.
     */
    static String percentDecoded(ByteBuffer b, int start, int end) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(end - start);
        for (int i = start; i < end; i++) {
            int c = b.get(i) & 0xFF;
            if (c == '%' && i + 2 < end
                    && HttpTokens.HEX[b.get(i + 1) & 0xFF] >= 0 && HttpTokens.HEX[b.get(i + 2) & 0xFF] >= 0) {
                out.write(HttpTokens.HEX[b.get(i + 1) & 0xFF] << 4 | HttpTokens.HEX[b.get(i + 2) & 0xFF]);
                i += 2;
            } else {
                out.write(c);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
