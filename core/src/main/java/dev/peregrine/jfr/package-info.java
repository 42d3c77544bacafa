/**
 * JDK Flight Recorder events of the server (rejections, timeouts, slow handlers), emitted only while a
 * recording enables them: see {@link dev.peregrine.jfr.PeregrineEvents}. Depends on nothing of
 * Peregrine's, only on the {@code jdk.jfr} module, and works without it.
 */
package dev.peregrine.jfr;
