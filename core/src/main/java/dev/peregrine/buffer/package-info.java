/**
 * Off-heap memory for the event loops: the per-loop {@link dev.peregrine.buffer.BufferPool} that lends
 * buffers to connections with unfinished input or unsent output, and the byte helpers used to scan
 * buffers eight bytes at a time.
 *
 * <p>Every buffer here is a direct {@link java.nio.ByteBuffer} in little-endian order, addressed with
 * absolute indices ({@code get(int)}, {@code getLong(int)}); positions and limits of shared buffers are
 * never used to carry state between methods. Nothing in this package is thread-safe: each pool belongs
 * to exactly one event loop thread.
 */
package dev.peregrine.buffer;
