package dev.peregrine.http1;

import dev.peregrine.exchange.RequestView;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Test harness around the production {@link RequestFramer}, with a {@link HeadParser} and a
 * {@link RequestView} of its own and test limits, so that the corpus can be fed at every split point
 * without sockets; plus the buffers and the snapshot the tests compare. It frames nothing itself.
 */
final class FramingHarness {
    static final int MAX_REQUEST_LINE = 8 * 1024;
    static final int MAX_HEAD = 16 * 1024;
    static final int MAX_HEADERS = 100;

    final HeadParser parser;
    final RequestView request;
    final RequestFramer framer;

    FramingHarness(long maxBody) {
        this(MAX_REQUEST_LINE, MAX_HEAD, MAX_HEADERS, maxBody);
    }

    FramingHarness(int maxRequestLine, int maxHead, int maxHeaders, long maxBody) {
        parser = new HeadParser(maxRequestLine, maxHead, maxHeaders);
        request = new RequestView(maxHeaders);
        framer = new RequestFramer(parser, maxBody, maxHead, Long.MAX_VALUE);
    }

    /** Where the request begins in the buffer: after empty lines the framer consumed alone. */
    private int start;

    /**
     * Frames the request in {@code b} (from index 0, or after the empty lines consumed by an earlier
     * call), as the connection calls it: never with no new bytes, and with empty lines that were all
     * there was consumed. Returns its end, {@link RequestFramer#NEED_MORE} or {@code -status}.
     */
    int frame(ByteBuffer b, int end) {
        if (end == start) {
            return RequestFramer.NEED_MORE;
        }
        int r = framer.frame(b, start, end, request);
        if (r == RequestFramer.EMPTY_LINES) {
            start = end;
            return RequestFramer.NEED_MORE;
        }
        return r;
    }

    /** As the connection does when the peer ends its input after {@link #frame} needed more. */
    int endOfInput(ByteBuffer b, int end) {
        return framer.inHead() ? framer.atEndOfInput(b, start, end, request) : RequestFramer.NEED_MORE;
    }

    /** As the connection does between reads: keeps the unframed bytes of {@code [.., end)} in {@code dst} from 0. */
    int keep(ByteBuffer b, int end, ByteBuffer dst) {
        int kept = framer.keep(b, start, end, dst);
        start = 0;
        return kept;
    }

    /** Everything the request view says, as one string to compare between splits. */
    String snapshot() {
        RequestView r = request;
        StringBuilder s = new StringBuilder();
        s.append(r.method()).append(' ').append(r.path()).append(" q=").append(r.rawQuery()).append(' ').append(r.version())
                .append(" cl=").append(r.contentLength).append(" chunked=").append(r.chunked)
                .append(" expect=").append(r.expectContinue).append(" keepAlive=").append(r.keepAlive())
                .append(" asterisk=").append(r.asteriskForm).append('\n');
        for (int i = 0; i < r.headers().size(); i++) {
            s.append(r.headers().name(i)).append(": [").append(r.headers().value(i)).append("]\n");
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
