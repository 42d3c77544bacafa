/**
 * The connection layer, the same for every protocol: the per-loop resources
 * ({@link dev.peregrine.loop.LoopContext}: buffers, pool, timer wheel, clock, counters), the
 * connection ({@link dev.peregrine.loop.Connection}: reading, input lending, output batching,
 * backpressure, closing, its timer node) speaking a {@link dev.peregrine.loop.Protocol} (the
 * HTTP/1.1 server in {@code dev.peregrine.server}, the client's in {@code dev.peregrine.client}),
 * what makes an accepted connection's protocol ({@link dev.peregrine.loop.ProtocolFactory}, one per
 * loop), and the small interfaces a transport implements ({@link dev.peregrine.loop.SocketEndpoint},
 * {@link dev.peregrine.loop.EventLoop}). Nothing here parses or encodes a protocol: the connection is
 * only the {@code buffer.OutputSink} encoders write through.
 *
 * <p>Threading vocabulary used in this package's docs: <em>loop thread</em> is the one thread that
 * owns a loop and everything reachable from its {@code LoopContext}; <em>any thread</em> marks the
 * few methods meant to be called from outside, which reach the loop only through its MPSC task
 * queue (JCTools) and a wake-up.
 */
package dev.peregrine.loop;
