package dev.peregrine.client;

/**
 * Whether and how an {@link HttpClient} speaks HTTP/2 (RFC 9113) to a host
 * ({@link HttpClient.Builder#http2}):
 * <pre>
 *   mode               https://                                   http://
 *   OFF (default)      HTTP/1.1 (ALPN offers http/1.1 only)       HTTP/1.1
 *   ALPN               ALPN offers h2 then http/1.1; the server's  HTTP/1.1
 *                      choice holds for the host from then on
 *   PRIOR_KNOWLEDGE    as ALPN                                     h2c: the connection starts with the
 *                                                                  preface (RFC 9113 §3.3), no upgrade
 * </pre>
 * Over HTTP/2 a host has one connection carrying many streams at once. A request with a streamed
 * body or a {@link ResponseBodyListener} is sent over HTTP/1.1 on the same host (docs/http2.md,
 * "Client"), as is one the server refused with {@code RST_STREAM HTTP_1_1_REQUIRED} (RFC 9113 §8.7).
 */
public enum Http2Mode {
    /** HTTP/1.1 only. */
    OFF,
    /** HTTP/2 over TLS when the server chooses it by ALPN; plain http stays HTTP/1.1. */
    ALPN,
    /** As {@link #ALPN}, and h2c by prior knowledge for plain http: for servers known to speak it. */
    PRIOR_KNOWLEDGE
}
