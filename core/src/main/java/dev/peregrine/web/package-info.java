/**
 * Web features a service mounts on its server, each off by default and free when off: {@link
 * dev.peregrine.Cors} (a {@link dev.peregrine.Filter} answering preflights), request ids
 * ({@link dev.peregrine.web.RequestIds}, {@code Server.Builder.requestIds}) and the access log
 * ({@link dev.peregrine.web.AccessLog}, {@code Server.Builder.accessLog}). The connection layer's
 * hook that applies the last two per request lives in {@code dev.peregrine.loop}.
 */
package dev.peregrine.web;
