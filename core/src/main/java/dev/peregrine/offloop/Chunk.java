package dev.peregrine.offloop;

/**
 * A heap buffer that carries body bytes between a loop and a handler's thread, through the bounded
 * queues of {@link IncomingBody} and {@link ChunkedBodyWriter}. Owned by one side at a time: whoever
 * took it from a queue. The queue hand-off orders its contents.
 */
final class Chunk {
    /** Marks the end of a body in a queue of filled chunks. */
    static final Chunk END = new Chunk(0);
    /** Marks a body given up (connection closed, timeout, handler failure). */
    static final Chunk ABORT = new Chunk(0);

    final byte[] data;
    /** Bytes of {@link #data} filled, from 0. */
    int length;
    /** Bytes already consumed, from 0. */
    int read;

    Chunk(int size) {
        data = new byte[size];
    }
}
