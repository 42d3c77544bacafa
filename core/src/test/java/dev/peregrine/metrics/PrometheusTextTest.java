package dev.peregrine.metrics;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PrometheusTextTest {

    @Test
    void prometheusTextNamesTheCounterSampleInTypeAndHelp() {
        PrometheusText t = new PrometheusText(false);
        t.counter("peregrine.network.io", "By", "Bytes.", 10, "network.io.direction", "receive");
        t.counter("peregrine.network.io", "By", "Bytes.", 20, "network.io.direction", "transmit");
        t.gauge("peregrine.connections.open", "{connection}", "Open.", 3);
        assertEquals("""
                # HELP peregrine_network_io_bytes_total Bytes.
                # TYPE peregrine_network_io_bytes_total counter
                peregrine_network_io_bytes_total{network_io_direction="receive"} 10
                peregrine_network_io_bytes_total{network_io_direction="transmit"} 20
                # HELP peregrine_connections_open Open.
                # TYPE peregrine_connections_open gauge
                peregrine_connections_open 3
                """, t.text());
        assertEquals("text/plain; version=0.0.4; charset=utf-8", t.contentType());
    }

    @Test
    void openMetricsNamesTheFamilyGivesTheUnitAndEnds() {
        PrometheusText t = PrometheusText.forAccept("application/openmetrics-text;version=1.0.0,text/plain;q=0.5");
        t.counter("peregrine.network.io", "By", "Bytes \"in\".", 10, "network.io.direction", "receive");
        t.counter("peregrine.requests", "{request}", "Requests.", 7);
        assertEquals("""
                # HELP peregrine_network_io_bytes Bytes \\"in\\".
                # TYPE peregrine_network_io_bytes counter
                # UNIT peregrine_network_io_bytes bytes
                peregrine_network_io_bytes_total{network_io_direction="receive"} 10
                # HELP peregrine_requests Requests.
                # TYPE peregrine_requests counter
                peregrine_requests_total 7
                # EOF
                """, t.text());
        assertEquals("application/openmetrics-text; version=1.0.0; charset=utf-8", t.contentType());
    }

    @Test
    void labelValuesAndHelpAreEscaped() {
        PrometheusText t = new PrometheusText(false);
        t.gauge("x", "1", "a\\b\nc", 1, "k", "q\"\\\n");
        assertEquals("# HELP x a\\\\b\\nc\n# TYPE x gauge\nx{k=\"q\\\"\\\\\\n\"} 1\n", t.text());
    }

    @Test
    void namesAreSanitisedAndUnitsNotRepeated() {
        assertEquals("jvm_memory_used_bytes", PrometheusText.familyName("jvm.memory.used", "By"));
        assertEquals("a_bytes", PrometheusText.familyName("a.bytes", "By"));
        assertEquals("_9a_b", PrometheusText.familyName("9a-b", "{thing}"));
        assertEquals("d_seconds", PrometheusText.familyName("d", "s"));
    }

    @Test
    void misuseIsRefused() {
        PrometheusText t = new PrometheusText(false);
        assertThrows(IllegalArgumentException.class, () -> t.gauge("x", "1", "h", 1, "odd"));
        t.gauge("a", "1", "h", 1);
        t.gauge("b", "1", "h", 1);
        assertThrows(IllegalStateException.class, () -> t.gauge("a", "1", "h", 2));
    }

    @Test
    void plainAcceptGetsPrometheusText() {
        assertEquals(PrometheusText.PROMETHEUS_CONTENT_TYPE, PrometheusText.forAccept(null).contentType());
        assertEquals(PrometheusText.PROMETHEUS_CONTENT_TYPE, PrometheusText.forAccept("*/*").contentType());
    }

    @Test
    void histogramsHaveCumulativeBucketsSumAndCount() {
        PrometheusText t = new PrometheusText(false);
        double[] bounds = {0.005, 0.1, 1};
        t.histogram("http.server.request.duration", "s", "Durations.", bounds, new long[]{2, 0, 1, 1}, 1.5,
                "http.route", "/a/{id}", "http.request.method", "GET");
        t.histogram("http.server.request.duration", "s", "Durations.", bounds, new long[]{1, 0, 0, 0}, 0.001,
                "http.route", "", "http.request.method", "GET");
        assertEquals("""
                # HELP http_server_request_duration_seconds Durations.
                # TYPE http_server_request_duration_seconds histogram
                http_server_request_duration_seconds_bucket{http_route="/a/{id}",http_request_method="GET",le="0.005"} 2
                http_server_request_duration_seconds_bucket{http_route="/a/{id}",http_request_method="GET",le="0.1"} 2
                http_server_request_duration_seconds_bucket{http_route="/a/{id}",http_request_method="GET",le="1.0"} 3
                http_server_request_duration_seconds_bucket{http_route="/a/{id}",http_request_method="GET",le="+Inf"} 4
                http_server_request_duration_seconds_sum{http_route="/a/{id}",http_request_method="GET"} 1.5
                http_server_request_duration_seconds_count{http_route="/a/{id}",http_request_method="GET"} 4
                http_server_request_duration_seconds_bucket{http_route="",http_request_method="GET",le="0.005"} 1
                http_server_request_duration_seconds_bucket{http_route="",http_request_method="GET",le="0.1"} 1
                http_server_request_duration_seconds_bucket{http_route="",http_request_method="GET",le="1.0"} 1
                http_server_request_duration_seconds_bucket{http_route="",http_request_method="GET",le="+Inf"} 1
                http_server_request_duration_seconds_sum{http_route="",http_request_method="GET"} 0.001
                http_server_request_duration_seconds_count{http_route="",http_request_method="GET"} 1
                """, t.text());
        PrometheusText open = new PrometheusText(true);
        open.histogram("d", "s", "D.", new double[]{1}, new long[]{0, 0}, 0, "k", "v");
        assertEquals("""
                # HELP d_seconds D.
                # TYPE d_seconds histogram
                # UNIT d_seconds seconds
                d_seconds_bucket{k="v",le="1.0"} 0
                d_seconds_bucket{k="v",le="+Inf"} 0
                d_seconds_sum{k="v"} 0.0
                d_seconds_count{k="v"} 0
                # EOF
                """, open.text());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new PrometheusText(false).histogram("d", "s", "D.", new double[]{1}, new long[]{0}, 0));
    }
}
