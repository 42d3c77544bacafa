/**
 * The exchange, protocol-neutral: the request and response views a handler reads and writes
 * ({@link dev.peregrine.exchange.RequestView}, {@link dev.peregrine.exchange.ResponseView}) with the
 * helpers only they need (the body and its stream, cursors, copies, path parameters, the file a
 * response sends, its owner, the compressor), filled today by HTTP/1.1, HTTP/2 streams ({@code h2})
 * and teleport frames.
 *
 * <p>This package builds on the codec ({@code http1}); the codec names nothing here. Each view extends
 * the codec's record of a message: {@code http1.RequestHead}, which the head parser fills, and
 * {@code http1.ResponseSource}, which the encoder reads, so neither call crosses back up and both stay
 * plain field accesses. Nothing here touches a socket: the encoder writes to the connection layer's
 * {@code OutputSink}. Thread: each loop owns one request view and one response view and reuses them.
 */
package dev.peregrine.exchange;
