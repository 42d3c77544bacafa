package dev.peregrine.client;

import dev.peregrine.http1.ResponseReader;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A response object the caller owns and hands to {@code send} again and again (fasthttp's
 * {@code Do(req, resp)}): the client fills it in place, growing its arrays only when a response is
 * larger than any before, so a call on the reuse path allocates nothing once warm.
 * <pre>{@code
 * ReusableResponse r = new ReusableResponse();          // one per call in flight, kept by the caller
 * client.send(request, r, (resp, failure) -> {          // on the loop thread
 *     if (failure == null) use(resp.status(), resp.body());
 *     client.send(request, resp, this::again);          // the same object, once the callback has it
 * });
 * }</pre>
 * <b>Lifetime.</b> What an accessor returns is valid from the callback until this object is passed to
 * {@code send} again (or {@link #clear()}ed): the body view then shows the next response's bytes.
 * {@code String}s (header names and values, the reason) are immutable and may be kept; copy the body
 * ({@link #bodyBytes()}, {@link #text()}, {@link #toResponse()}) to keep it past the next call.
 * <br>Header {@code String}s come from the connection's reader, which hands back the previous
 * response's {@code String} when the bytes repeat, so only a changed value (a new {@code Date} each
 * second) costs an allocation.
 *
 * <p>Thread: one call at a time. Passing an object that is still in a call to {@code send} throws
 * {@link IllegalStateException} at the call. The client writes it on a loop thread before the
 * callback runs, and the callback's thread sees those writes.
 */
public final class ReusableResponse {
    static {
        dev.peregrine.client.internal.ReuseAccess.install(new dev.peregrine.client.internal.ReuseAccess.Operations() {
            @Override
            public void claim(ReusableResponse r) {
                r.claim();
            }

            @Override
            public void fill(ReusableResponse r, ResponseReader reader, ByteBuffer buf) {
                r.fill(reader, buf);
            }

            @Override
            public void complete(ReusableResponse r, ResponseCallback callback, ClientException failure, ClientRequest request) {
                if (failure != null) {
                    r.clear();
                }
                r.unclaim();
                Call.callBack(callback, r, failure, request);
            }
        });
    }

    private final AtomicBoolean inCall = new AtomicBoolean();
    private int status;
    private String reason = "";
    private String[] names = new String[16];
    private String[] values = new String[16];
    private int fields;
    private byte[] body = new byte[1024];
    private ByteBuffer bodyView = ByteBuffer.wrap(body).asReadOnlyBuffer();
    private int bodyLength;

    /** An empty response (status 0), ready for its first call. */
    public ReusableResponse() {
    }

    /** Status code of the response; 0 before the first response and after a failure. Valid until reused. */
    public int status() {
        return status;
    }

    /** The reason phrase (may be empty). An immutable {@code String}: keep it freely. */
    public String reason() {
        return reason;
    }

    /** Header fields received (the response's, interim 1xx responses not included). Valid until reused. */
    public int headerCount() {
        return fields;
    }

    /** The name of field {@code i} ({@code 0 <= i < headerCount()}), as received. Immutable: keep it freely. */
    public String headerName(int i) {
        return names[checkField(i)];
    }

    /** The value of field {@code i}, without surrounding whitespace. Immutable: keep it freely. */
    public String headerValue(int i) {
        return values[checkField(i)];
    }

    /** The first value of header {@code name} (any case), or null. Immutable: keep it freely. Allocates nothing. */
    public String header(String name) {
        for (int i = 0; i < fields; i++) {
            if (names[i].equalsIgnoreCase(name)) {
                return values[i];
            }
        }
        return null;
    }

    /** Body length in bytes (chunked coding removed). Valid until reused. */
    public int bodyLength() {
        return bodyLength;
    }

    /**
     * The body as a read-only view, position 0, limit {@link #bodyLength()}. The same view object is
     * returned each time (its position and limit set afresh); its bytes are valid until this response is
     * passed to {@code send} again. Allocates nothing.
     */
    public ByteBuffer body() {
        bodyView.clear().limit(bodyLength);
        return bodyView;
    }

    /** A copy of the body to keep. */
    public byte[] bodyBytes() {
        return Arrays.copyOf(body, bodyLength);
    }

    /** The body as UTF-8 text (a copy). */
    public String text() {
        return new String(body, 0, bodyLength, StandardCharsets.UTF_8);
    }

    /** An immutable copy ({@link ClientResponse}) to keep past the next call. */
    public ClientResponse toResponse() {
        return new ClientResponse(status, reason, List.of(Arrays.copyOf(names, fields)),
                List.of(Arrays.copyOf(values, fields)), bodyBytes());
    }

    /** Empties the response (status 0, no field, no body); the arrays stay for the next call. Not during a call. */
    public void clear() {
        status = 0;
        reason = "";
        Arrays.fill(names, 0, fields, null);
        Arrays.fill(values, 0, fields, null);
        fields = 0;
        bodyLength = 0;
    }

    @Override
    public String toString() {
        return status + " " + reason + " (" + bodyLength + " bytes)";
    }

    private int checkField(int i) {
        if (i < 0 || i >= fields) {
            throw new IndexOutOfBoundsException("field " + i + " of " + fields);
        }
        return i;
    }

    /** The caller hands this object to a call. */
    void claim() {
        if (!inCall.compareAndSet(false, true)) {
            throw new IllegalStateException("this ReusableResponse is still in a call: wait for its callback, or use another");
        }
    }

    /** The call ended (the callback runs next): the caller may send with this object again. */
    void unclaim() {
        inCall.set(false);
    }

    /** Copies the response {@code reader} just completed: fields by reference, the body out of {@code buf}. */
    void fill(ResponseReader reader, ByteBuffer buf) {
        List<String> n = reader.names();
        List<String> v = reader.values();
        fillHead(reader.status(), reader.reason(), n.size());
        for (int i = 0; i < fields; i++) { // get(i), not addAll or toArray: neither allocates here
            names[i] = n.get(i);
            values[i] = v.get(i);
        }
        int length = reader.bodyLength();
        ensureBody(length);
        buf.get(reader.bodyStart(), body, 0, length);
        bodyLength = length;
    }

    /** Copies a response read over HTTP/2: the fields by reference, the body {@code [0, length)} of {@code data}. */
    void fill(int status, String[] n, String[] v, int count, byte[] data, int length) {
        fillHead(status, "", count);
        System.arraycopy(n, 0, names, 0, count);
        System.arraycopy(v, 0, values, 0, count);
        ensureBody(length);
        System.arraycopy(data, 0, body, 0, length);
        bodyLength = length;
    }

    /** Copies {@code r} (the adapter over the future API, which already allocated it). */
    void fill(ClientResponse r) {
        List<String> n = r.headerNames();
        List<String> v = r.headerValues();
        fillHead(r.status(), r.reason(), n.size());
        for (int i = 0; i < fields; i++) {
            names[i] = n.get(i);
            values[i] = v.get(i);
        }
        byte[] b = r.bodyArray();
        ensureBody(b.length);
        System.arraycopy(b, 0, body, 0, b.length);
        bodyLength = b.length;
    }

    private void fillHead(int status, String reason, int count) {
        this.status = status;
        this.reason = reason;
        if (count > names.length) {
            int size = Math.max(count, 2 * names.length);
            names = Arrays.copyOf(names, size);
            values = Arrays.copyOf(values, size);
        }
        Arrays.fill(names, count, Math.max(count, fields), null); // no stale references past the new count
        Arrays.fill(values, count, Math.max(count, fields), null);
        fields = count;
    }

    private void ensureBody(int length) {
        if (length > body.length) {
            body = new byte[(int) Math.min(Integer.MAX_VALUE - 8, Math.max(length, 2L * body.length))];
            bodyView = ByteBuffer.wrap(body).asReadOnlyBuffer();
        }
    }
}
