/**
 * The HTTP/2 frame codec (RFC 9113 §4, §6), pure: {@link dev.peregrine.h2.frame.FrameParser} reads
 * frames in place from any buffer (heap or direct), {@link dev.peregrine.h2.frame.FrameWriter} writes
 * them through an {@link dev.peregrine.buffer.OutputSink}. Depends on nothing of ours but that sink.
 */
package dev.peregrine.h2.frame;
