/**
 * The Linux epoll transport on {@code netty-transport-native-epoll}, used as an epoll library only
 * (Netty's {@code IoHandle} API, no channels or pipeline): what epoll does its own way on the shared
 * {@link dev.peregrine.transport.NativeEventLoop}. {@link dev.peregrine.transport.epoll.NettyEpoll} is
 * the only class of this package that names Netty types; {@link dev.peregrine.transport.epoll.EpollAvailability}
 * answers whether the transport can run without loading them unguarded.
 *
 * <p>Edge-triggered readiness, and how none is lost, is explained in
 * {@link dev.peregrine.transport.epoll.EpollEndpoint} and {@link dev.peregrine.transport.ReadPump};
 * accepting in {@link dev.peregrine.transport.epoll.EpollIo}.
 */
package dev.peregrine.transport.epoll;
