/**
 * The socket layer behind a small SPI: a {@link dev.peregrine.transport.TransportEngine} binds listening
 * sockets and runs event loops that drive {@link dev.peregrine.loop.Connection}s. Everything
 * above the socket — buffers, parser, router, write batching — is shared by all transports.
 */
package dev.peregrine.transport;
