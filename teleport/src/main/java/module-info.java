/**
 * Teleport (docs/teleport.md): HTTP/1.1 messages in id-tagged frames over one connection between
 * Peregrine peers. A protocol on core's connection layer, which is why it reads {@code dev.peregrine}'s
 * internal packages through qualified exports. It exports only {@code dev.peregrine.teleport}.
 */
module dev.peregrine.teleport {
    requires transitive dev.peregrine;
    requires transitive dev.peregrine.client;
    requires org.jctools.core; // CallPool: the free list of calls, taken by any thread
    requires org.lz4.java; // at.yawk.lz4:lz4-java (an automatic module): LZ4 (Lz4Stream)

    exports dev.peregrine.teleport;
}
