package dev.peregrine.client;

import dev.peregrine.http1.ResponseReader;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A complete response: status, headers in order, body in memory. Immutable; valid forever. */
public final class ClientResponse {
    private final int status;
    private final String reason;
    private final List<String> names;
    private final List<String> values;
    private final byte[] body;

    /** The response {@code reader} just completed, its body copied out of {@code buf}. */
    static ClientResponse of(ResponseReader reader, ByteBuffer buf) {
        byte[] body = new byte[reader.bodyLength()];
        buf.get(reader.bodyStart(), body);
        return new ClientResponse(reader.status(), reader.reason(), reader.namesCopy(), reader.valuesCopy(), body);
    }

    /**
     * A response read by another transport that carries HTTP/1.1 messages (teleport): field names and
     * values in order, pairwise, kept as given; {@code body} is kept, not copied.
     */
    public static ClientResponse of(int status, String reason, List<String> names, List<String> values, byte[] body) {
        return new ClientResponse(status, reason, names, values, body);
    }

    ClientResponse(int status, String reason, List<String> names, List<String> values, byte[] body) {
        this.status = status;
        this.reason = reason;
        this.names = names;
        this.values = values;
        this.body = body;
    }

    public int status() {
        return status;
    }

    public String reason() {
        return reason;
    }

    /** The first value of header {@code name} (any case), or null. */
    public String header(String name) {
        for (int i = 0; i < names.size(); i++) {
            if (names.get(i).equalsIgnoreCase(name)) {
                return values.get(i);
            }
        }
        return null;
    }

    /** Every value of {@code name} (any case), in order. */
    public List<String> headers(String name) {
        List<String> v = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            if (names.get(i).equalsIgnoreCase(name)) {
                v.add(values.get(i));
            }
        }
        return v;
    }

    /** Header names in the order received. */
    public List<String> headerNames() {
        return names;
    }

    /** Header values in the order received, parallel to {@link #headerNames()}. */
    public List<String> headerValues() {
        return values;
    }

    /** A copy of the body. */
    public byte[] body() {
        return body.clone();
    }

    /** The body itself, not copied (for {@link ReusableResponse}, which copies it). */
    byte[] bodyArray() {
        return body;
    }

    /** The body as UTF-8 text. */
    public String text() {
        return new String(body, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return status + " " + reason + " (" + body.length + " bytes)";
    }
}
