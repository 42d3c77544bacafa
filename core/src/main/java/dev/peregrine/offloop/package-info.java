/**
 * Work a connection's HTTP/1.1 protocol does off its loop, or over several loop turns: a request
 * handed to a blocking handler or answered later through {@code res.async()}
 * ({@link dev.peregrine.offloop.Exchange}), a response body sent in pieces
 * ({@link dev.peregrine.offloop.BodySource}: a file, a producer, an output stream), and a request body
 * streamed to a handler ({@link dev.peregrine.offloop.IncomingBody}). The protocol reaches this
 * package through {@code Exchange.blocking}, {@code BodySource.start}, {@code IncomingBody} and the
 * loop's {@link dev.peregrine.offloop.OffLoop}; this package reaches back only through
 * {@link dev.peregrine.offloop.OffLoopHost} (per connection) and {@link dev.peregrine.offloop.HttpLoop}
 * (per loop), so it depends on the connection layer ({@code loop}) and the codecs ({@code http1}),
 * never on the protocol's package ({@code server}).
 *
 * <p>Threads: the loop thread, except where a class says which of its methods other threads call
 * (completions, the handler's streams).
 */
package dev.peregrine.offloop;
