/**
 * Content codings (RFC 9110 §8.4.1) as reusable encoders and decoders, pure: no I/O, no loop, nothing
 * of ours beneath them but the API values of {@code dev.peregrine.compress}. gzip and deflate use
 * {@code java.util.zip}; br and zstd use Brotli4j and zstd-jni when the application has them
 * ({@link dev.peregrine.compress.NativeCodecs} finds them at run time; no class of this package
 * that names them is loaded otherwise). Internal: not exported.
 *
 * <p>Thread: an {@link dev.peregrine.compress.engine.Encoder} or decoder belongs to one thread at a time
 * (a loop's); {@link dev.peregrine.compress.NativeCodecs} is safe from any thread.
 */
package dev.peregrine.compress.engine;
