package dev.peregrine.client;

import dev.peregrine.BodyProducer;
import dev.peregrine.buffer.HttpTokens;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One request to send: method, absolute {@code http} or {@code https} URL, headers and an in-memory
 * body (replayable, so an idempotent request can be retried), or a streamed body from a
 * {@link BodyProducer}. Immutable once built.
 */
public final class ClientRequest {
    private final String method;
    private final URI uri;
    private final List<String[]> headers;
    private final byte[] body;
    private final BodyProducer producer;
    private final long producedLength;

    private ClientRequest(String method, URI uri, List<String[]> headers, byte[] body, BodyProducer producer,
                          long producedLength) {
        this.method = method;
        this.uri = uri;
        this.headers = headers;
        this.body = body;
        this.producer = producer;
        this.producedLength = producedLength;
        this.wireHead = RequestWriter.head(this); // immutable: a request sent again and again is encoded once
        this.hostKey = uri.getHost() + ":" + port();
        this.poolKey = (https() ? "https://" : "http://") + hostKey;
    }

    private final byte[] wireHead;
    /** The HTTP/2 field block, built at the first send over HTTP/2 ({@link H2RequestBlock}). */
    private volatile byte[] h2Block;
    private final String hostKey;
    private final String poolKey;

    /** The scheme with {@code host:port}: what keys a pool, so http and https to one port never share one. */
    String poolKey() {
        return poolKey;
    }

    /**
     * The request's head as HTTP/1.1 puts it on the wire (request line, Host, fields, framing), built
     * once: shared, not to be modified. Other transports that carry HTTP/1.1 messages (teleport) send it.
     */
    public byte[] wireHead() {
        return wireHead;
    }

    /** The request's HTTP/2 field block: built once, then shared (not to be modified). */
    byte[] h2Block() {
        byte[] b = h2Block;
        if (b == null) {
            b = H2RequestBlock.encode(this);
            h2Block = b;
        }
        return b;
    }

    /** The next hop of a redirect ({@link Redirects}): values already checked by the request it follows. */
    static ClientRequest redirected(String method, URI uri, List<String[]> headers, byte[] body) {
        return new ClientRequest(method, uri, headers, body, null, -1);
    }

    /** The same request sent to {@code uri} (a balancer's upstream), a streamed body included. */
    ClientRequest retargeted(URI uri) {
        return new ClientRequest(method, uri, headers, body, producer, producedLength);
    }

    /** The streamed body's producer, or null when the body (if any) is {@link #body()}. */
    public BodyProducer producer() {
        return producer;
    }

    /** The streamed body's length, or -1 when it is sent chunked. */
    long producedLength() {
        return producedLength;
    }

    /** Whether the request can be sent again (a streamed body cannot: its producer runs once). */
    public boolean replayable() {
        return producer == null;
    }

    /** {@code GET url}. */
    public static ClientRequest get(String url) {
        return builder("GET", url).build();
    }

    /**
     * A builder for {@code method url}.
     *
     * @throws IllegalArgumentException for a method that is not a token or a URL that is not absolute http(s)
     */
    public static Builder builder(String method, String url) {
        return new Builder(method, url);
    }

    public String method() {
        return method;
    }

    public URI uri() {
        return uri;
    }

    /** Header name and value pairs, in order. */
    public List<String[]> headers() {
        return headers;
    }

    /** The body, or null for none. */
    public byte[] body() {
        return body;
    }

    /** The first value of {@code name} (any case), or null. */
    public String header(String name) {
        for (String[] h : headers) {
            if (h[0].equalsIgnoreCase(name)) {
                return h[1];
            }
        }
        return null;
    }

    /**
     * Whether a retry cannot repeat an effect (RFC 9110 §9.2.2): an idempotent method, or a request
     * carrying an {@code Idempotency-Key}.
     */
    public boolean idempotent() {
        switch (method) {
            case "GET":
            case "HEAD":
            case "OPTIONS":
            case "TRACE":
            case "PUT":
            case "DELETE":
                return true;
            default:
                return header("Idempotency-Key") != null;
        }
    }

    boolean https() {
        return uri.getScheme().equalsIgnoreCase("https");
    }

    int port() {
        return uri.getPort() > 0 ? uri.getPort() : https() ? 443 : 80;
    }

    /** {@code host:port}, the pool key and the name in errors. */
    String hostKey() {
        return hostKey;
    }

    /** The request-target: path and query, {@code /} when empty (RFC 9112 §3.2.1). */
    String target() {
        String path = uri.getRawPath();
        String query = uri.getRawQuery();
        String t = path == null || path.isEmpty() ? "/" : path;
        return query == null ? t : t + "?" + query;
    }

    /** Collects a request. Not thread-safe. */
    public static final class Builder {
        private final String method;
        private final URI uri;
        private final List<String[]> headers = new ArrayList<>();
        private byte[] body;
        private BodyProducer producer;
        private long producedLength = -1;

        private Builder(String method, String url) {
            if (!HttpTokens.isToken(method)) {
                throw new IllegalArgumentException("not an HTTP method token: " + method);
            }
            this.method = method;
            URI u;
            try {
                u = URI.create(url);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("not a URL: " + url, e);
            }
            String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || u.getHost() == null) {
                throw new IllegalArgumentException("not an absolute http or https URL: " + url);
            }
            this.uri = u;
        }

        /**
         * Adds a header.
         *
         * @throws IllegalArgumentException for a name that is not a token, a value with CR, LF, NUL
         *     or other control bytes, or a header the client writes itself (Host, Content-Length,
         *     Transfer-Encoding)
         */
        public Builder header(String name, String value) {
            if (!HttpTokens.isToken(name)) {
                throw new IllegalArgumentException("not a header name: " + name);
            }
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if ((c < 0x20 && c != '\t') || c == 0x7F || c > 0xFF) {
                    throw new IllegalArgumentException("header " + name + " holds a control or non-Latin-1 character");
                }
            }
            String lower = name.toLowerCase(Locale.ROOT);
            if (lower.equals("host") || lower.equals("content-length") || lower.equals("transfer-encoding")) {
                throw new IllegalArgumentException(name + " is written by the client");
            }
            headers.add(new String[] {name, value});
            return this;
        }

        /** The body (copied), sent with its Content-Length. */
        public Builder body(byte[] body) {
            this.body = body.clone();
            this.producer = null;
            return this;
        }

        /** The body as UTF-8. */
        public Builder body(String body) {
            this.body = body.getBytes(StandardCharsets.UTF_8);
            this.producer = null;
            return this;
        }

        /**
         * A streamed body: {@code producer} is pulled on the connection's loop whenever the socket has
         * taken what it gave before (so a slow server slows the producer instead of filling memory),
         * and must not block. With {@code length >= 0} it is sent with that {@code Content-Length} (a
         * producer giving more or fewer bytes fails the call); with -1 it is sent chunked. Such a
         * request is sent once: never retried, and a 307 or 308 is the answer rather than followed.
         * Only {@link HttpClient} sends it.
         */
        public Builder body(long length, BodyProducer producer) {
            if (producer == null || length < -1) {
                throw new IllegalArgumentException("a streamed body wants a producer and a length >= -1 (-1: chunked)");
            }
            this.producer = producer;
            this.producedLength = length;
            this.body = null;
            return this;
        }

        public ClientRequest build() {
            return new ClientRequest(method, uri, List.copyOf(headers), body, producer, producedLength);
        }
    }
}
