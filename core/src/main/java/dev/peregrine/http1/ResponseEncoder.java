package dev.peregrine.http1;

import dev.peregrine.buffer.Ascii;
import dev.peregrine.buffer.OutputSink;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Writes responses as HTTP/1.1 bytes into an {@link OutputSink}:
 * <pre>
 *   HTTP/1.1 200 OK\r\n                 pre-built per status ({@link Status})
 *   Server: Peregrine\r\n               constant
 *   Date: Sun, 22 Nov 2026 06:08:46 GMT\r\n   cached, rebuilt once a second ({@link #tick})
 *   Content-Type: text/plain\r\n        bytes cached while the handler passes the same object
 *   X-Header: value\r\n ...             as set by the handler
 *   X-Request-Id: id\r\n                when request ids are on (ResponseSource.requestId)
 *   Content-Length: 13\r\n              unless 1xx, 204 or 304 (RFC 9110 §8.6)
 *   Connection: close\r\n               when the connection ends after this response
 *   \r\n
 *   body                                not for HEAD, 1xx, 204, 304 (RFC 9110 §9.3.2, §15)
 * </pre>
 * The head, and a body of up to about 900 bytes, are put together in a heap scratch array and copied
 * into the sink's direct buffer once (see {@link #encode}). A plain response (no fields of the
 * handler's, no request id) made of the same status, Content-Type object, length and connection
 * handling as the one before it finds its head still in the scratch and is not put together again;
 * the clock's {@link #tick} rewrites the kept head's Date line in place, so the head outlives a second. When the sink's buffer fills, the encoder asks the sink to drain and
 * continues, so a body of any size can be written. Thread: one event loop.
 */
public final class ResponseEncoder {
    private static final byte[] SERVER = Ascii.bytes("Server: Peregrine\r\n");
    private static final byte[] CONTENT_TYPE = Ascii.bytes("Content-Type: ");
    private static final byte[] CONTENT_LENGTH = Ascii.bytes("Content-Length: ");
    private static final byte[] CONNECTION_CLOSE = Ascii.bytes("Connection: close\r\n");
    private static final byte[] CONNECTION_KEEP_ALIVE = Ascii.bytes("Connection: keep-alive\r\n");
    private static final byte[] COLON_SPACE = Ascii.bytes(": ");
    private static final byte[] CRLF = Ascii.bytes("\r\n");
    private static final byte[] CONTINUE = Ascii.bytes("HTTP/1.1 100 Continue\r\n\r\n");
    private static final byte[] TRANSFER_CHUNKED = Ascii.bytes("Transfer-Encoding: chunked\r\n");
    private static final byte[] REQUEST_ID = Ascii.bytes("X-Request-Id: ");
    private static final byte[] ERROR_TYPE = Ascii.bytes("Content-Type: text/plain; charset=utf-8\r\n");

    /** Eight bytes of a {@code byte[]} as one {@code long}: see {@link #copy(byte[], int, byte[], int)}. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** Room {@link #headFields} leaves for the framing fields: Content-Length (20 digits) or chunked, Connection, CRLF. */
    private static final int FRAMING_ROOM = 64;

    private final DateHeader date = new DateHeader();
    private byte[] dateLine = date.line(System.currentTimeMillis());
    /** Where a response is put together before its one copy into the write buffer (see {@link #encode}). */
    private byte[] scratch = new byte[1024];
    /** The largest the scratch is kept at; a head larger than that is put together in an array of its own. */
    private static final int MAX_KEPT_SCRATCH = 64 * 1024;
    /** The array {@link #headFields} wrote the head into: {@link #scratch}, or for a huge head a one-off array. */
    private byte[] assembly = scratch;

    private CharSequence cachedType;
    private byte[] cachedTypeLine;

    // The head encode() last put together in the scratch for a plain response (no fields of the
    // handler's, no request id, a String Content-Type or none), and what it was made of: a next plain
    // response of the same status, Content-Type object, length and connection handling is the same bytes
    // while the Date line has not changed, so encode() keeps them instead of copying the parts again.
    // repeatKey is the status and the connection handling in one int ({@link #repeatKey}), so the check
    // is three compares; -1: nothing kept. Cleared by whatever else writes the scratch
    // (scratchForWriting) (a tick in a new second rewrites its Date line in place: the head stays kept).
    private int repeatKey = -1;
    private CharSequence repeatType;
    private long repeatLength;
    private int repeatHeadLength;
    /** The second of the Date line last written; a tick within it changes nothing. */
    private long dateSecond = Long.MIN_VALUE;

    /** The cached {@code Date: ...\r\n} line (HTTP/2 takes its value); not to be modified. */
    public byte[] dateLine() {
        return dateLine;
    }

    /** Refreshes the cached {@code Date} to the clock reading {@code nowMillis}. Call once per loop cycle. */
    public void tick(long nowMillis) {
        long second = Math.floorDiv(nowMillis, 1000);
        if (second != dateSecond) { // the loop ticks up to once a millisecond; the Date line changes once a second
            dateSecond = second;
            dateLine = date.line(nowMillis);
            if (repeatKey != -1) { // the kept head gets the new Date in place (37 bytes a second): no rebuild
                int at = Status.statusLine(repeatKey >>> 2).length + SERVER.length; // where headFields put it
                System.arraycopy(dateLine, 0, scratch, at, dateLine.length);
            }
        }
    }

    /**
     * Writes {@code res}. The head, and a body that fits beside it, are put together in
     * {@link #scratch} and go into the direct write buffer as one copy: each copy into a direct buffer
     * has a fixed cost (bounds, the buffer's scope, the copy stub) that outweighs a few dozen bytes,
     * while on the heap they cost next to nothing. A larger body follows with its own copies.
     *
     * @param head the request was HEAD: headers as for GET, no body
     * @param keepAlive whether the connection stays open afterwards
     * @param http10 the request was HTTP/1.0, which closes unless told otherwise
     */
    public void encode(ResponseSource res, boolean head, boolean keepAlive, boolean http10, OutputSink sink) {
        int status = res.status;
        long length = bodyLength(res);
        boolean bodyAllowed = status >= 200 && status != 204 && status != 304;
        // No fields of the handler's; the Content-Type is checked below: the kept one is a String or
        // none, so being that same object is enough, and only a head about to be kept tests the class.
        boolean plain = res.headerCount == 0 && res.fields == null && res.requestId == null;
        int key = repeatKey(status, keepAlive, http10);
        int n;
        byte[] s;
        if (plain && key == repeatKey && res.contentType == repeatType && length == repeatLength) {
            s = scratch; // the head already there is this response's (assembly is the scratch too: see putScratch)
            n = repeatHeadLength;
        } else {
            n = headFields(res);
            s = assembly;
            if (bodyAllowed) {
                n = copy(CONTENT_LENGTH, s, n);
                n = putDecimal(s, n, length);
                n = copy(CRLF, s, n);
            }
            n = endHead(s, n, keepAlive, http10);
            if (plain && s == scratch && (res.contentType == null || res.contentType instanceof String)) {
                repeatKey = key;
                repeatType = res.contentType;
                repeatLength = length;
                repeatHeadLength = n;
            }
        }
        boolean bodyLeft = !head && bodyAllowed && length > 0;
        if (bodyLeft && length <= s.length - n) {
            n = bodyInto(res, s, n, (int) length);
            bodyLeft = false;
        }
        ByteBuffer out = putScratch(s, n, sink);
        if (bodyLeft) {
            putBody(res, sink, out);
        }
    }

    /** {@link #repeatKey}: a status (100-999) and the two connection flags in one int, never -1. */
    private static int repeatKey(int status, boolean keepAlive, boolean http10) {
        return status << 2 | (keepAlive ? 2 : 0) | (http10 ? 1 : 0);
    }

    /**
     * Puts the head up to its framing fields into {@link #scratch} — status line, {@code Server},
     * {@code Date}, {@code Content-Type}, the handler's fields, {@code X-Request-Id} — and returns
     * where it ends, leaving room for the framing fields ({@link #FRAMING_ROOM}), in {@link #assembly}. The
     * scratch grows to the largest head a loop has written, up to {@link #MAX_KEPT_SCRATCH} (handlers'
     * fields are the only unbounded part); a larger head gets an array of its own, for this response.
     */
    private int headFields(ResponseSource res) {
        byte[] status = Status.statusLine(res.status);
        byte[] type = res.contentType == null ? null : contentTypeLine(res.contentType);
        int need = status.length + SERVER.length + dateLine.length + FRAMING_ROOM
                + (type == null ? 0 : type.length) + (res.fields == null ? 0 : res.fields.length)
                + (res.requestId == null ? 0 : REQUEST_ID.length + res.requestId.length() + CRLF.length);
        for (int i = 0; i < res.headerCount; i++) {
            need += res.headerNames[i].length() + res.headerValues[i].length() + COLON_SPACE.length + CRLF.length;
        }
        byte[] s = scratchForWriting();
        if (need > s.length) {
            s = new byte[Math.max(need, Math.min(2 * s.length, MAX_KEPT_SCRATCH))];
            if (s.length <= MAX_KEPT_SCRATCH) {
                scratch = s;
            }
        }
        assembly = s;
        int n = copy(status, s, 0);
        n = copy(SERVER, s, n);
        n = copy(dateLine, s, n);
        if (type != null) {
            n = copy(type, s, n);
        }
        for (int i = 0; i < res.headerCount; i++) {
            n = latin1(res.headerNames[i], s, n);
            n = copy(COLON_SPACE, s, n);
            n = latin1(res.headerValues[i], s, n);
            n = copy(CRLF, s, n);
        }
        if (res.fields != null) {
            n = copy(res.fields, s, n);
        }
        if (res.requestId != null) {
            n = copy(REQUEST_ID, s, n);
            n = latin1(res.requestId, s, n);
            n = copy(CRLF, s, n);
        }
        return n;
    }

    /** {@code Connection} where the default does not hold (RFC 9112 §9.3), then the empty line. */
    private static int endHead(byte[] s, int n, boolean keepAlive, boolean http10) {
        if (!keepAlive) {
            n = copy(CONNECTION_CLOSE, s, n);
        } else if (http10) {
            n = copy(CONNECTION_KEEP_ALIVE, s, n);
        }
        return copy(CRLF, s, n);
    }

    /**
     * Copies {@code s[0, n)} (the scratch, or a one-off array from {@link #headFields}) into the sink's
     * buffer, in one piece unless it is larger than the buffer.
     */
    private ByteBuffer putScratch(byte[] s, int n, OutputSink sink) {
        ByteBuffer out = sink.out();
        if (out.remaining() >= n) {
            out.put(s, 0, n); // the usual case: one copy, none of put()'s loop
        } else {
            sink.drain();
            out = put(sink, sink.out(), s, n);
        }
        if (s != scratch) {
            assembly = scratch; // a one-off array for a huge head is not kept
        }
        return out;
    }

    /** The scratch, for writing from its start: the head kept there for {@link #encode}'s repeat is gone. */
    private byte[] scratchForWriting() {
        repeatKey = -1;
        return scratch;
    }

    private static int copy(byte[] src, byte[] dst, int at) {
        return copy(src, src.length, dst, at);
    }

    /**
     * Copies {@code src[0, length)} to {@code dst} at {@code at}; returns the end. A head is a row of
     * copies of 2 to 60 bytes (status line, Date, Content-Type, a short body), and for those
     * {@code System.arraycopy}'s stub call costs more than the bytes (async-profiler put the stub at 13%
     * of an in-memory pipelined request's samples). Eight bytes at a time through a long view, the last
     * word placed to end exactly at {@code length} (overlapping the one before: the arrays are
     * distinct), is a few moves instead: 2-3% off {@code ServerTimingBenchmark.serverGetPipelined16}.
     */
    private static int copy(byte[] src, int length, byte[] dst, int at) {
        if (length < 8 || length > 64) {
            System.arraycopy(src, 0, dst, at, length);
            return at + length;
        }
        int last = length - 8;
        if (last <= 8) { // 8 to 16 bytes (a short body, Content-Length: ): two words, no loop to set up
            LONGS.set(dst, at, (long) LONGS.get(src, 0));
            LONGS.set(dst, at + last, (long) LONGS.get(src, last));
            return at + length;
        }
        for (int i = 0; i < last; i += 8) {
            LONGS.set(dst, at + i, (long) LONGS.get(src, i));
        }
        LONGS.set(dst, at + last, (long) LONGS.get(src, last));
        return at + length;
    }

    private static int latin1(CharSequence cs, byte[] dst, int at) {
        for (int i = 0, len = cs.length(); i < len; i++) {
            dst[at++] = (byte) cs.charAt(i);
        }
        return at;
    }

    /** Copies the body, {@code length} bytes once encoded, into {@code s} at {@code n}; returns the end. */
    public static int bodyInto(ResponseSource res, byte[] s, int n, int length) {
        switch (res.bodyKind) {
            case ResponseSource.BODY_BYTES:
                return copy(res.bodyBytes, length, s, n);
            case ResponseSource.BODY_BUFFER:
                res.bodyBuffer.get(res.bodyBuffer.position(), s, n, length);
                return n + length;
            case ResponseSource.BODY_CHARS:
                return utf8(res.bodyChars, 0, res.bodyChars.length(), s, n);
            default:
                return n;
        }
    }

    private void putBody(ResponseSource res, OutputSink sink, ByteBuffer out) {
        switch (res.bodyKind) {
            case ResponseSource.BODY_BYTES:
                put(sink, out, res.bodyBytes, res.bodyBytes.length);
                break;
            case ResponseSource.BODY_BUFFER:
                putBuffer(sink, out, res.bodyBuffer);
                break;
            case ResponseSource.BODY_CHARS:
                putUtf8(sink, out, res.bodyChars);
                break;
            default:
                break;
        }
    }

    /** Writes a complete error response, {@code "<code> <reason>\n"} as its text body, closing the connection. */
    public void encodeError(int status, OutputSink sink) {
        String reason = Status.reason(status);
        byte[] s = scratchForWriting(); // an error's head and body are a few hundred bytes at most
        int n = copy(Status.statusLine(status), s, 0);
        n = copy(SERVER, s, n);
        n = copy(dateLine, s, n);
        n = copy(ERROR_TYPE, s, n);
        n = copy(CONTENT_LENGTH, s, n);
        n = putDecimal(s, n, 3 + 1 + reason.length() + 1);
        n = copy(CRLF, s, n);
        n = copy(CONNECTION_CLOSE, s, n);
        n = copy(CRLF, s, n);
        n = putDecimal(s, n, status);
        s[n++] = ' ';
        n = latin1(reason, s, n);
        s[n++] = '\n';
        putScratch(s, n, sink);
    }

    /**
     * Writes the head of a response whose body follows separately: a file of {@code length} bytes
     * (framed by {@code Content-Length}), or, with {@code length < 0}, a body of unknown length framed
     * by {@code Transfer-Encoding: chunked} (RFC 9112 §7.1) — unless {@code http10}, which knows no
     * chunked coding: then the body is unframed and ends when the connection closes (RFC 9112 §6.3),
     * so {@code keepAlive} must be false. The caller writes the body; for HEAD, 1xx, 204 and 304 it
     * writes none.
     */
    public void encodeStreamHead(ResponseSource res, long length, boolean keepAlive, boolean http10, OutputSink sink) {
        int status = res.status;
        int n = headFields(res);
        byte[] s = assembly;
        if (status >= 200 && status != 204 && status != 304) {
            if (length >= 0) {
                n = copy(CONTENT_LENGTH, s, n);
                n = putDecimal(s, n, length);
                n = copy(CRLF, s, n);
            } else if (!http10) {
                n = copy(TRANSFER_CHUNKED, s, n);
            }
        }
        putScratch(s, endHead(s, n, keepAlive, http10), sink);
    }

    /** Whether a response with {@code status} to a {@code head} request carries a body (RFC 9110 §6.4.1). */
    public static boolean hasBody(int status, boolean head) {
        return !head && status >= 200 && status != 204 && status != 304;
    }

    /**
     * Writes an interim response: its status line, {@code headers} (name, value pairs, validated by
     * the caller) and the empty line. No Date, no Server: RFC 9110 §15.2 asks for neither.
     */
    public void encodeInterim(int status, String[] headers, OutputSink sink) {
        int size = 64;
        for (String h : headers) {
            size += h.length() + 4;
        }
        ByteBuffer out = sink.out();
        if (out.remaining() < size) {
            sink.drain();
            out = sink.out();
            if (out.remaining() < size) {
                throw new IllegalArgumentException("interim response larger than the write buffer: " + size + " bytes");
            }
        }
        out.put(Status.statusLine(status));
        for (int i = 0; i < headers.length; i += 2) {
            putAscii(out, headers[i]);
            out.put((byte) ':').put((byte) ' ');
            putAscii(out, headers[i + 1]);
            out.put(CRLF);
        }
        out.put(CRLF);
    }

    private static void putAscii(ByteBuffer out, String s) {
        for (int i = 0; i < s.length(); i++) {
            out.put((byte) s.charAt(i));
        }
    }

    /** Writes {@code 100 Continue} (RFC 9110 §10.1.1). */
    public void encodeContinue(OutputSink sink) {
        ByteBuffer out = sink.out();
        if (out.remaining() < CONTINUE.length) {
            sink.drain();
            out = sink.out();
        }
        out.put(CONTINUE);
    }

    public static long bodyLength(ResponseSource res) {
        switch (res.bodyKind) {
            case ResponseSource.BODY_BYTES:
                return res.bodyBytes == null ? 0 : res.bodyBytes.length;
            case ResponseSource.BODY_BUFFER:
                return res.bodyBuffer == null ? 0 : res.bodyBuffer.remaining();
            case ResponseSource.BODY_CHARS:
                return res.bodyChars == null ? 0 : utf8Length(res.bodyChars);
            default:
                return 0;
        }
    }

    private byte[] contentTypeLine(CharSequence type) {
        if (type != cachedType) {
            byte[] line = new byte[CONTENT_TYPE.length + type.length() + 2];
            System.arraycopy(CONTENT_TYPE, 0, line, 0, CONTENT_TYPE.length);
            for (int i = 0; i < type.length(); i++) {
                line[CONTENT_TYPE.length + i] = (byte) type.charAt(i);
            }
            line[line.length - 2] = '\r';
            line[line.length - 1] = '\n';
            cachedTypeLine = line;
            // Only immutable strings are remembered: a mutable CharSequence may change under the cache.
            cachedType = type instanceof String ? type : null;
            return line;
        }
        return cachedTypeLine;
    }

    /** Writes {@code v} (not negative) in decimal into {@code s} at {@code n}; returns the end. */
    private static int putDecimal(byte[] s, int n, long v) {
        int digits = 1;
        for (long t = v; t >= 10; t /= 10) {
            digits++;
        }
        int end = n + digits;
        for (int i = end - 1; i >= n; i--) {
            s[i] = (byte) ('0' + (v % 10));
            v /= 10;
        }
        return end;
    }

    /** Puts {@code src[0, length)}, draining the sink whenever its buffer fills. */
    private static ByteBuffer put(OutputSink sink, ByteBuffer out, byte[] src, int length) {
        int off = 0;
        while (off < length) {
            if (!out.hasRemaining()) {
                sink.drain();
                out = sink.out();
            }
            int n = Math.min(out.remaining(), length - off);
            out.put(src, off, n);
            off += n;
        }
        return out;
    }

    private static void putBuffer(OutputSink sink, ByteBuffer out, ByteBuffer src) {
        int pos = src.position();
        int end = src.limit();
        while (pos < end) {
            if (!out.hasRemaining()) {
                sink.drain();
                out = sink.out();
            }
            int n = Math.min(out.remaining(), end - pos);
            out.put(out.position(), src, pos, n);
            out.position(out.position() + n);
            pos += n;
        }
    }

    static long utf8Length(CharSequence s) {
        long n = 0;
        for (int i = 0, len = s.length(); i < len; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3; // a lone surrogate is written as U+FFFD, three bytes
            }
        }
        return n;
    }

    /**
     * Writes {@code cs[from, to)} as UTF-8 into {@code s} at {@code n} (room checked by the caller);
     * returns the end. A lone surrogate is written as U+FFFD.
     */
    private static int utf8(CharSequence cs, int from, int to, byte[] s, int n) {
        for (int i = from; i < to; i++) {
            char c = cs.charAt(i);
            if (c < 0x80) {
                s[n++] = (byte) c;
            } else if (c < 0x800) {
                s[n++] = (byte) (0xC0 | (c >> 6));
                s[n++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < to && Character.isLowSurrogate(cs.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, cs.charAt(++i));
                s[n++] = (byte) (0xF0 | (cp >> 18));
                s[n++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                s[n++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                s[n++] = (byte) (0x80 | (cp & 0x3F));
            } else {
                if (Character.isSurrogate(c)) {
                    c = '\uFFFD';
                }
                s[n++] = (byte) (0xE0 | (c >> 12));
                s[n++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                s[n++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        return n;
    }

    /**
     * Writes {@code cs} as UTF-8 through {@link #scratch}, a scratch-full at a time: at most three bytes
     * per char (a surrogate pair is four bytes for two), and a pair is never split between two pieces.
     */
    private void putUtf8(OutputSink sink, ByteBuffer out, CharSequence cs) {
        byte[] s = scratchForWriting();
        int chunk = s.length / 3;
        for (int i = 0, len = cs.length(); i < len; ) {
            int j = Math.min(len, i + chunk);
            if (j < len && Character.isHighSurrogate(cs.charAt(j - 1))) {
                j--;
            }
            out = put(sink, out, s, utf8(cs, i, j, s, 0));
            i = j;
        }
    }
}
