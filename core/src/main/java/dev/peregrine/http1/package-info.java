/**
 * HTTP/1.1 on bytes: the request head parser ({@link dev.peregrine.http1.HeadParser}), the chunked
 * body decoder ({@link dev.peregrine.http1.ChunkedDecoder}), the request flyweight
 * ({@link dev.peregrine.http1.RequestView}) and the response side
 * ({@link dev.peregrine.http1.ResponseView}, {@link dev.peregrine.http1.ResponseEncoder}).
 *
 * <p>Nothing here touches a socket or a thread: input is a buffer and a range of absolute indices,
 * output is bytes appended to a buffer. Each loop owns one instance of each class and reuses it.
 * Protocol rules cite RFC 9112 (HTTP/1.1 message syntax) and RFC 9110 (HTTP semantics) by section.
 */
package dev.peregrine.http1;
