/**
 * HTTP/1.1 on bytes, the pure codec: the request head parser ({@link dev.peregrine.http1.HeadParser},
 * filling a {@link dev.peregrine.http1.RequestHead}), the request framer, the chunked body decoder
 * ({@link dev.peregrine.http1.ChunkedDecoder}), the client's response reader
 * ({@link dev.peregrine.http1.ResponseReader}), status lines, the Date field and the header rules.
 *
 * <p>Nothing here touches a socket or a thread, and nothing names the exchange
 * ({@code dev.peregrine.exchange}: the request and response views and the response encoder, which
 * build on this package; {@code PackageDependenciesTest}): input is a buffer and a range of absolute
 * indices, output is offsets recorded into a {@code RequestHead} or bytes appended to a buffer. Each
 * loop owns one instance of each class and reuses it. Protocol rules cite RFC 9112 (HTTP/1.1 message
 * syntax) and RFC 9110 (HTTP semantics) by section.
 */
package dev.peregrine.http1;
