package dev.peregrine.client;

import java.util.Arrays;

/**
 * One request-response exchange on an {@link Http2ClientConnection}: the call, its stream id, what
 * of the request body is still to send and the windows, and the response as it arrives (the head's
 * fields by reference, the body copied into an array of the stream's own). Streams are kept by their
 * connection and reused, so a warm connection makes none.
 * <pre>
 *   idle --HEADERS sent--&gt; OPEN --our END_STREAM--&gt; HALF_CLOSED(local) --their END_STREAM--&gt; closed
 *        (a body that does not fit the peer's windows waits in OPEN for WINDOW_UPDATE)
 *   their END_STREAM first (an early answer): the rest of our body is not sent, RST_STREAM NO_ERROR
 *   RST_STREAM either way --&gt; closed                                           (RFC 9113 §5.1)
 * </pre>
 * Thread: the connection's loop thread.
 */
final class H2Stream {
    int id;
    Call call;
    /** The peer's window for this stream (may go negative after a SETTINGS change, §6.9.2). */
    long sendWindow;
    /** The request body, or null; {@link #sent} bytes of it are out. */
    byte[] body;
    int sent;
    /** Whether our END_STREAM is out. */
    boolean localEnded;
    /** Received bytes not yet given back with WINDOW_UPDATE. */
    int recvUnacked;
    /** Whether any frame of the response arrived (a lost connection retries only streams without). */
    boolean responded;

    // The response.
    int status;
    int fieldCount;
    String[] names = new String[8];
    String[] values = new String[8];
    long contentLength;
    byte[] data = new byte[1024];
    int dataLength;

    void start(int id, Call call, long sendWindow) {
        this.id = id;
        this.call = call;
        this.sendWindow = sendWindow;
        this.body = call.request.body();
        this.sent = 0;
        this.localEnded = false;
        this.recvUnacked = 0;
        this.responded = false;
        this.status = 0;
        this.dataLength = 0;
        this.contentLength = -1;
        Arrays.fill(names, 0, fieldCount, null);
        Arrays.fill(values, 0, fieldCount, null);
        this.fieldCount = 0;
    }

    /** Takes the final head from {@code f}. */
    void head(H2Fields f) {
        status = f.status;
        contentLength = f.contentLength;
        if (names.length < f.count) {
            names = new String[f.count];
            values = new String[f.count];
        }
        System.arraycopy(f.names, 0, names, 0, f.count);
        System.arraycopy(f.values, 0, values, 0, f.count);
        fieldCount = f.count;
    }

    /** Appends DATA; returns false when the body would pass {@code max}. */
    boolean append(java.nio.ByteBuffer b, int from, int to, long max) {
        int n = to - from;
        if ((long) dataLength + n > max) {
            return false;
        }
        if (dataLength + n > data.length) {
            data = Arrays.copyOf(data, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(dataLength + n, 2L * data.length)));
        }
        b.get(from, data, dataLength, n);
        dataLength += n;
        return true;
    }

    /** Lets go of the call and the request (the stream goes back to its connection's free list). */
    void clear() {
        call = null;
        body = null;
        if (data.length > 64 * 1024) {
            data = new byte[1024]; // a large body's array is not kept for every later small one
        }
    }

    /** Whether request body bytes wait for the peer's windows. */
    boolean blocked() {
        return !localEnded && call != null;
    }
}
