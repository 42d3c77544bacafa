/**
 * Metrics exposition without dependencies: {@link dev.peregrine.metrics.MetricSink} is what a source
 * of meters writes to ({@code Metrics.describe}, {@link dev.peregrine.metrics.JvmMetrics}),
 * {@link dev.peregrine.metrics.PrometheusText} turns it into the Prometheus text format (0.0.4) or
 * OpenMetrics 1.0. Names follow OpenTelemetry's semantic conventions where one exists
 * ({@code jvm.memory.used}, attribute {@code http.response.status_code}, {@code network.io.direction})
 * and are {@code peregrine.*} otherwise; the Prometheus spelling is derived from them by
 * OpenTelemetry's own rule (dots to underscores, a unit suffix, {@code _total} for counters).
 *
 * <p>This package depends on nothing of Peregrine's: the server's endpoint
 * ({@code Server.Builder.metricsEndpoint}) and the {@code peregrine-micrometer} module use it.
 */
package dev.peregrine.metrics;
