/**
 * The Linux epoll transport on {@code netty-transport-native-epoll}, used as an epoll library only
 * (Netty's {@code IoHandle} API, no channels or pipeline). {@link dev.peregrine.transport.epoll.NettyEpoll}
 * is the only class that names Netty types; {@link dev.peregrine.transport.epoll.EpollAvailability}
 * answers whether the transport can run without loading them unguarded.
 *
 * <p>Edge-triggered readiness, and how none is lost, is explained in
 * {@link dev.peregrine.transport.epoll.EpollEndpoint}; the loop's cycle and its stop in
 * {@link dev.peregrine.transport.epoll.EpollEventLoop}.
 */
package dev.peregrine.transport.epoll;
