package dev.peregrine.metrics;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * A {@link MetricSink} that writes the Prometheus text exposition format (version 0.0.4) or
 * OpenMetrics 1.0 text, chosen by the scraper's {@code Accept} header ({@link #forAccept}).
 *
 * <p>Naming, OpenTelemetry's Prometheus rule: {@code peregrine.network.io} with unit {@code By} is
 * the family {@code peregrine_network_io_bytes}; a counter's sample adds {@code _total}; a unit in
 * braces adds nothing. Label keys get the same dot-to-underscore rule.
 *
 * <pre>
 * Prometheus 0.0.4                              OpenMetrics 1.0
 * # HELP peregrine_requests_total Requests...   # HELP peregrine_requests Requests...
 * # TYPE peregrine_requests_total counter       # TYPE peregrine_requests counter
 * peregrine_requests_total 42                   peregrine_requests_total 42
 *                                               ...
 *                                               # EOF
 * </pre>
 *
 * Not thread-safe: one instance per scrape, on the scraping thread. Samples of one family must come
 * one after another (a family seen again later is refused with {@link IllegalStateException}, since
 * both formats forbid it).
 */
public final class PrometheusText implements MetricSink {
    /** Content type of the Prometheus text format. */
    public static final String PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    /** Content type of OpenMetrics text. */
    public static final String OPENMETRICS_CONTENT_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    private final boolean openMetrics;
    private final StringBuilder out = new StringBuilder(2048);
    private final Set<String> families = new HashSet<>();
    private String family;

    /** @param openMetrics true for OpenMetrics 1.0, false for the Prometheus text format 0.0.4 */
    public PrometheusText(boolean openMetrics) {
        this.openMetrics = openMetrics;
    }

    /** OpenMetrics when {@code accept} (an HTTP Accept value, may be null) names it, else Prometheus text. */
    public static PrometheusText forAccept(String accept) {
        return new PrometheusText(accept != null
                && accept.toLowerCase(Locale.ROOT).contains("application/openmetrics-text"));
    }

    /** The content type of what {@link #text()} returns. */
    public String contentType() {
        return openMetrics ? OPENMETRICS_CONTENT_TYPE : PROMETHEUS_CONTENT_TYPE;
    }

    @Override
    public void counter(String name, String unit, String help, long value, String... labels) {
        sample(name, unit, help, "counter", value, labels);
    }

    @Override
    public void gauge(String name, String unit, String help, long value, String... labels) {
        sample(name, unit, help, "gauge", value, labels);
    }

    /**
     * Writes {@code <family>_bucket} samples with cumulative counts and an {@code le} label per bound
     * and {@code +Inf}, then {@code _sum} and {@code _count}, as both formats spell a histogram.
     */
    @Override
    public void histogram(String name, String unit, String help, double[] bounds, long[] counts, double sum, String... labels) {
        if ((labels.length & 1) != 0) {
            throw new IllegalArgumentException("labels must be key, value pairs: " + labels.length + " strings for " + name);
        }
        if (counts.length != bounds.length + 1) {
            throw new IllegalArgumentException("a histogram needs one count per bound plus +Inf: " + name);
        }
        String base = familyName(name, unit);
        header(base, base, help, "histogram", unit);
        long cumulative = 0;
        for (int i = 0; i <= bounds.length; i++) {
            cumulative += counts[i];
            out.append(base).append("_bucket");
            labels(labels, "le", i < bounds.length ? Double.toString(bounds[i]) : "+Inf");
            out.append(' ').append(cumulative).append('\n');
        }
        out.append(base).append("_sum");
        labels(labels, null, null);
        out.append(' ').append(sum).append('\n');
        out.append(base).append("_count");
        labels(labels, null, null);
        out.append(' ').append(cumulative).append('\n');
    }

    /** The exposition so far, closed with {@code # EOF} for OpenMetrics. */
    public String text() {
        return openMetrics ? out + "# EOF\n" : out.toString();
    }

    private void sample(String name, String unit, String help, String type, long value, String[] labels) {
        if ((labels.length & 1) != 0) {
            throw new IllegalArgumentException("labels must be key, value pairs: " + labels.length + " strings for " + name);
        }
        String base = familyName(name, unit);
        boolean counter = type.equals("counter");
        String sampleName = counter ? base + "_total" : base;
        header(base, openMetrics ? base : sampleName, help, type, unit);
        out.append(sampleName);
        labels(labels, null, null);
        out.append(' ').append(value).append('\n');
    }

    /** HELP, TYPE (and UNIT for OpenMetrics) once per family; a family seen again later is refused. */
    private void header(String base, String described, String help, String type, String unit) {
        if (base.equals(family)) {
            return;
        }
        if (!families.add(base)) {
            throw new IllegalStateException("samples of " + base + " are not contiguous");
        }
        family = base;
        out.append("# HELP ").append(described).append(' ');
        escape(help, false);
        out.append('\n').append("# TYPE ").append(described).append(' ').append(type).append('\n');
        String unitWord = unitSuffix(unit);
        if (openMetrics && !unitWord.isEmpty()) {
            out.append("# UNIT ").append(base).append(' ').append(unitWord).append('\n');
        }
    }

    /** {@code {k="v",...}} of the pairs in {@code labels}, plus {@code extraKey} when given; nothing when empty. */
    private void labels(String[] labels, String extraKey, String extraValue) {
        if (labels.length == 0 && extraKey == null) {
            return;
        }
        out.append('{');
        for (int i = 0; i < labels.length; i += 2) {
            if (i > 0) {
                out.append(',');
            }
            out.append(sanitize(labels[i])).append("=\"");
            escape(labels[i + 1], true);
            out.append('"');
        }
        if (extraKey != null) {
            out.append(labels.length > 0 ? "," : "").append(extraKey).append("=\"").append(extraValue).append('"');
        }
        out.append('}');
    }

    /** The family name of a dotted OpenTelemetry name: underscores, plus the unit's word. */
    static String familyName(String name, String unit) {
        String base = sanitize(name);
        String suffix = unitSuffix(unit);
        return suffix.isEmpty() || base.endsWith("_" + suffix) ? base : base + "_" + suffix;
    }

    /** OpenTelemetry's unit words for Prometheus; a unit in braces or {@code 1} adds none. */
    static String unitSuffix(String unit) {
        if (unit == null || unit.isEmpty() || unit.equals("1") || unit.startsWith("{")) {
            return "";
        }
        switch (unit) {
            case "By":
                return "bytes";
            case "s":
                return "seconds";
            case "ms":
                return "milliseconds";
            default:
                return sanitize(unit);
        }
    }

    /** Any character outside {@code [a-zA-Z0-9_:]} becomes {@code _}; a leading digit gets one before it. */
    static String sanitize(String name) {
        StringBuilder b = new StringBuilder(name.length() + 1);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || c >= '0' && c <= '9';
            if (i == 0 && c >= '0' && c <= '9') {
                b.append('_');
            }
            b.append(ok ? c : '_');
        }
        return b.toString();
    }

    /** Backslash, newline and (in label values, and in OpenMetrics help) the double quote are escaped. */
    private void escape(String s, boolean labelValue) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\') {
                out.append("\\\\");
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c == '"' && (labelValue || openMetrics)) {
                out.append("\\\"");
            } else {
                out.append(c);
            }
        }
    }
}
