package io.ailb.lb.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class EndpointTest {

    @Test
    void nlohmannDumpZeroInfoIsReadAsJson() {
        String info = "{\n\"health_status\": \"Healthy\",\n\"metrics\": \"vllm:num_requests_waiting 3\\n\"\n}";
        Endpoint e = Endpoint.fromHostInfo("10.0.0.1:8000", info);
        assertEquals("10.0.0.1:8000", e.address());
        assertTrue(e.healthy());
        assertEquals("vllm:num_requests_waiting 3\n", e.metricsText());
    }

    @Test
    void onlyTheExactHealthyStatusIsHealthy() {
        assertFalse(
                Endpoint.fromHostInfo("a:1", "{\"health_status\": \"healthy\"}").healthy());
        assertFalse(Endpoint.fromHostInfo("a:1", "{\"health_status\": \"Degraded\"}")
                .healthy());
        assertFalse(Endpoint.fromHostInfo("a:1", "{}").healthy());
    }

    @Test
    void aMissingMetricsFieldGivesNoMetrics() {
        assertNull(
                Endpoint.fromHostInfo("a:1", "{\"health_status\": \"Healthy\"}").metricsText());
    }

    @Test
    void invalidInfoJsonGivesAnUnhealthyEndpointWithoutMetrics() {
        Endpoint e = Endpoint.fromHostInfo("a:1", "health_status: Healthy");
        assertFalse(e.healthy());
        assertNull(e.metricsText());
    }

    @Test
    void nonObjectInfoJsonGivesAnUnhealthyEndpoint() {
        assertFalse(Endpoint.fromHostInfo("a:1", "[\"Healthy\"]").healthy());
        assertFalse(Endpoint.fromHostInfo("a:1", null).healthy());
    }
}
