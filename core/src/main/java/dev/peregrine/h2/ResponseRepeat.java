package dev.peregrine.h2;

import dev.peregrine.h2.hpack.HpackTable;
import dev.peregrine.http1.ResponseParts;
import dev.peregrine.http1.ResponseSource;

import java.util.Arrays;

/**
 * The response field block encoded last on this loop, kept to be sent again as it is when the next
 * response on the same connection has the same fields: h2load's, and most applications', responses
 * repeat {@code :status}, {@code server}, {@code date} (within its second), {@code content-type} and
 * {@code content-length}, which the connection's table already holds, so the block is the same few
 * indexed bytes every time, and encoding it again (a table lookup per field) is work for nothing.
 *
 * <p><b>Why the bytes stay right</b> (RFC 7541 §2.3.2, §6.1). Encoding is a function of the fields and
 * of the table; a block is remembered only when encoding it left the table as it was
 * ({@link HpackTable#version()} the same before and after: every field was indexed, nothing was added,
 * and no size update was signalled, §6.3). So the peer's decoder, reading those bytes again, adds
 * nothing either, and the table we keep of it stays in step. The block is reused only for the same
 * table ({@code ==}) at the same version: any change in between (a field added by another response, an
 * interim response, a size update after the peer's SETTINGS_HEADER_TABLE_SIZE, which also puts a size
 * update in the block's start) moves the version and the block is encoded afresh.
 * <pre>
 *   key:   table (identity) and its version; :status; content-length (-1: none sent); content-type
 *          (a String, or none); date's value bytes; the handler's fields (Strings, at most
 *          MAX_FIELDS, in order); no preformatted fields, no x-request-id (unique per response)
 *   value: the block's bytes (at most MAX_BLOCK)
 * </pre>
 * One per loop, like the decoder's repeated block ({@link Http2Loop#repeatDecoder}): a read brings the
 * requests of one connection, whose responses then hit; the first response after another
 * connection's encodes and is remembered. It holds the table of the connection it last served, closed
 * or not, until another's replaces it: one table per loop at most.
 *
 * <p>Thread: the loop thread.
 */
final class ResponseRepeat {
    static final int MAX_BLOCK = 128;
    static final int MAX_FIELDS = 4;

    private HpackTable table;
    private int version;
    private int status;
    private long contentLength;
    private String type;
    private final byte[] date = new byte[64];
    private int dateLength;
    private final String[] fields = new String[2 * MAX_FIELDS];
    private int fieldCount;
    private final byte[] block = new byte[MAX_BLOCK];
    private int length;

    /**
     * Whether a response with these fields may be remembered or reused at all: a table, no preformatted
     * fields, no request id, a String content-type (or none: a mutable one could change under us), at
     * most {@link #MAX_FIELDS} fields of the handler's, their values Strings.
     */
    static boolean eligible(HpackTable table, ResponseSource res) {
        CharSequence type = ResponseParts.contentType(res);
        int n = ResponseParts.headerCount(res);
        if (table == null || ResponseParts.fields(res) != null || ResponseParts.requestId(res) != null || n > MAX_FIELDS
                || (type != null && !(type instanceof String))) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (!(ResponseParts.headerValue(res, i) instanceof String)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether the block remembered is that of {@code res} (an {@link #eligible} one) against {@code t}
     * now (see the class javadoc); {@code contentLength} is the one sent, -1 for none, and the date's
     * value is {@code [dateOff, dateOff+dateLen)} of {@code dateLine}.
     */
    boolean matches(HpackTable t, ResponseSource res, long contentLength, byte[] dateLine, int dateOff, int dateLen) {
        int n = ResponseParts.headerCount(res);
        CharSequence type = ResponseParts.contentType(res);
        if (t != table || t.version() != version || ResponseParts.status(res) != status || contentLength != this.contentLength
                || n != fieldCount || !(type == null ? this.type == null : type.equals(this.type))
                || !Arrays.equals(dateLine, dateOff, dateOff + dateLen, date, 0, dateLength)) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (!ResponseParts.headerName(res, i).equals(fields[2 * i]) || !ResponseParts.headerValue(res, i).equals(fields[2 * i + 1])) {
                return false;
            }
        }
        return true;
    }

    /**
     * Remembers {@code [0, length)} of {@code bytes} as the block of {@code res} (an {@link #eligible}
     * one), encoded against {@code t} at {@code versionBefore}; nothing is kept when the encoding moved
     * the table, or for a block or date too long.
     */
    void remember(HpackTable t, int versionBefore, byte[] bytes, int length, ResponseSource res, long contentLength,
            byte[] dateLine, int dateOff, int dateLen) {
        if (t.version() != versionBefore || length > MAX_BLOCK || dateLen > date.length) {
            return;
        }
        int n = ResponseParts.headerCount(res);
        table = t;
        version = versionBefore;
        status = ResponseParts.status(res);
        this.contentLength = contentLength;
        type = (String) ResponseParts.contentType(res);
        System.arraycopy(dateLine, dateOff, date, 0, dateLen);
        dateLength = dateLen;
        for (int i = 0; i < n; i++) {
            fields[2 * i] = ResponseParts.headerName(res, i);
            fields[2 * i + 1] = (String) ResponseParts.headerValue(res, i);
        }
        Arrays.fill(fields, 2 * n, fields.length, null);
        fieldCount = n;
        System.arraycopy(bytes, 0, block, 0, length);
        this.length = length;
    }

    byte[] block() {
        return block;
    }

    int length() {
        return length;
    }
}
