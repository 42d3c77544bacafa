/**
 * HPACK (RFC 7541), pure: {@link dev.peregrine.h2.hpack.HpackTable} (static and dynamic tables, shared
 * by both directions), {@link dev.peregrine.h2.hpack.Huffman}, {@link dev.peregrine.h2.hpack.HpackDecoder}
 * and {@link dev.peregrine.h2.hpack.HpackEncoder}. Depends on nothing of ours.
 */
package dev.peregrine.h2.hpack;
