/**
 * Peregrine's HTTP/1.1 client: a protocol on the server's connection layer (same loops, buffers,
 * timer wheel and TLS engine), which is why it reads {@code dev.peregrine}'s internal packages
 * through qualified exports. It exports {@code dev.peregrine.client}, and {@code dev.peregrine.client.internal}
 * to teleport only.
 */
module dev.peregrine.client {
    requires transitive dev.peregrine;
    requires org.jctools.core;

    exports dev.peregrine.client;
    exports dev.peregrine.client.internal to dev.peregrine.teleport; // ReuseAccess: the reuse path of teleport's client
}
