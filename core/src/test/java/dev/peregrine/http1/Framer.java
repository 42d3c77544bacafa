package dev.peregrine.http1;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Test harness: frames one request the way {@code HttpConnection.handleOne} does — head with
 * {@link HeadParser}, then the body by Content-Length or with {@link ChunkedDecoder} — so that the
 * corpus can be fed at every split point without sockets. Restartable like the connection: call
 * {@link #frame} again from the request's first byte once more bytes are there.
 */
final class Framer {
    static final int MAX_REQUEST_LINE = 8 * 1024;
    static final int MAX_HEAD = 16 * 1024;
    static final int MAX_HEADERS = 100;

    final HeadParser parser;
    final RequestView request;
    final ChunkedDecoder decoder = new ChunkedDecoder();
    final long maxBody;

    Framer(long maxBody) {
        this(MAX_REQUEST_LINE, MAX_HEAD, MAX_HEADERS, maxBody);
    }

    Framer(int maxRequestLine, int maxHead, int maxHeaders, long maxBody) {
        parser = new HeadParser(maxRequestLine, maxHead, maxHeaders);
        request = new RequestView(maxHeaders);
        this.maxBody = maxBody;
    }

    /** @return the message's end, {@link HeadParser#NEED_MORE} or {@code -status} */
    int frame(ByteBuffer b, int end) {
        int headEnd = parser.parse(b, 0, end, request);
        if (headEnd < 0) {
            return headEnd;
        }
        if (request.chunked) {
            if (!decoder.active()) {
                decoder.start(headEnd);
            }
            int r = decoder.decode(b, 0, end, maxBody, MAX_HEAD);
            if (r < 0) {
                return r;
            }
            request.setBody(b, decoder.bodyStartRel(), decoder.decodedLength());
            return r;
        }
        if (request.contentLength > maxBody) {
            return -413;
        }
        int length = (int) Math.max(0, request.contentLength);
        if (end - headEnd < length) {
            return HeadParser.NEED_MORE;
        }
        request.setBody(b, headEnd, length);
        return headEnd + length;
    }

    /** Everything the request view says, as one string to compare between splits. */
    String snapshot() {
        RequestView r = request;
        StringBuilder s = new StringBuilder();
        s.append(r.method()).append(' ').append(r.path()).append(" q=").append(r.query()).append(' ').append(r.version())
                .append(" cl=").append(r.contentLength).append(" chunked=").append(r.chunked)
                .append(" expect=").append(r.expectContinue).append(" keepAlive=").append(r.keepAlive())
                .append(" asterisk=").append(r.asteriskForm).append('\n');
        for (int i = 0; i < r.headerCount(); i++) {
            s.append(r.headerName(i)).append(": [").append(r.headerValue(i)).append("]\n");
        }
        s.append("body=").append(new String(r.bodyBytes(), StandardCharsets.ISO_8859_1));
        return s.toString();
    }

    static ByteBuffer buffer(int capacity) {
        return ByteBuffer.allocateDirect(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** A direct little-endian buffer holding {@code bytes} at index 0, with room for more. */
    static ByteBuffer bufferOf(byte[] bytes, int capacity) {
        ByteBuffer b = buffer(capacity);
        b.put(0, bytes);
        return b;
    }
}
