/**
 * Web features a service mounts on its server, each off by default and free when off: {@link
 * dev.peregrine.web.Cors} (a {@link dev.peregrine.Filter} answering preflights), request ids and the
 * access log ({@code Server.Builder.requestIds}, {@code Server.Builder.accessLog}).
 */
package dev.peregrine.web;
