/**
 * Reading cookies in place: {@link dev.peregrine.cookie.CookieCursor} walks a request's {@code Cookie}
 * fields (RFC 6265 §5.4, lenient as servers must be) without allocating; {@code req.cookies().cursor()}
 * lends one per request view. ({@code Set-Cookie} values are built with {@link dev.peregrine.Cookie}.)
 * Depends only on {@code dev.peregrine.buffer}.
 */
package dev.peregrine.cookie;
