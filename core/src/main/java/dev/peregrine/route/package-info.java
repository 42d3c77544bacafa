/**
 * Maps a request's method and path to its handler: {@link dev.peregrine.route.Router}. Built once
 * before the server starts and shared, read-only, by every loop.
 */
package dev.peregrine.route;
