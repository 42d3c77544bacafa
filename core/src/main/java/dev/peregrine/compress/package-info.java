/**
 * Content codings as the API names them: {@link dev.peregrine.compress.Coding} (RFC 9110 §8.4.1: gzip,
 * deflate, br, zstd, and whether each is available here) and
 * {@link dev.peregrine.compress.BodyDecodingException} (a request body that could not be decoded). The
 * encoders and the request-body decoder themselves are internal, in {@code compress.engine}.
 */
package dev.peregrine.compress;
