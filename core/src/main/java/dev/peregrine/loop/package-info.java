/**
 * What every transport shares above the socket: the per-loop resources
 * ({@link dev.peregrine.loop.LoopContext}), the per-connection HTTP/1.1 engine
 * ({@link dev.peregrine.loop.Connection}, speaking a {@link dev.peregrine.loop.Protocol} such as {@link dev.peregrine.loop.Http1ServerProtocol}) and the small interfaces a transport implements
 * ({@link dev.peregrine.loop.SocketEndpoint}, {@link dev.peregrine.loop.EventLoop}).
 *
 * <p>Threading vocabulary used in this package's docs: <em>loop thread</em> is the one thread that
 * owns a loop and everything reachable from its {@code LoopContext}; <em>any thread</em> marks the
 * few methods meant to be called from outside, which reach the loop only through its MPSC task
 * queue (JCTools) and a wake-up.
 */
package dev.peregrine.loop;
