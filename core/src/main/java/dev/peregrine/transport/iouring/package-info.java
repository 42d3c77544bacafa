/**
 * The Linux io_uring transport on {@code netty-transport-native-io_uring}, used as an io_uring library
 * only (Netty's {@code IoHandle} API, no channels or pipeline): what io_uring does its own way on the
 * shared {@link dev.peregrine.transport.NativeEventLoop}.
 * {@link dev.peregrine.transport.iouring.NettyIoUring} (and its sockets: {@code RingSockets}, {@code Listening},
 * {@code Dialed}) and {@link dev.peregrine.transport.iouring.RecvRing} (the provided-buffer ring connections
 * receive into) are the only classes of this package that name Netty types; the first says what goes
 * through the ring; {@link dev.peregrine.transport.iouring.IoUringAvailability}
 * answers whether the transport can run without loading them unguarded.
 *
 * <p>How no readiness is lost, and how sends and closes go, is explained in
 * {@link dev.peregrine.transport.iouring.IoUringEndpoint}; accepting under {@code maxConnections} in
 * {@link dev.peregrine.transport.iouring.IoUringIo}.
 */
package dev.peregrine.transport.iouring;
