/**
 * The Linux io_uring transport on {@code netty-transport-native-io_uring}, used as an io_uring library
 * only (Netty's {@code IoHandle} API, no channels or pipeline).
 * {@link dev.peregrine.transport.iouring.NettyIoUring} is the only class that names Netty types and
 * says what goes through the ring; {@link dev.peregrine.transport.iouring.IoUringAvailability} answers
 * whether the transport can run without loading them unguarded.
 *
 * <p>How no readiness is lost is explained in {@link dev.peregrine.transport.iouring.IoUringEndpoint};
 * the loop's cycle, accepting under {@code maxConnections} and the stop in
 * {@link dev.peregrine.transport.iouring.IoUringEventLoop}.
 */
package dev.peregrine.transport.iouring;
