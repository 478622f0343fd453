package io.ailb.sim.router.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PromTextTest {
    @Test
    void sumsSamplesOfExactlyThatMetric() {
        String text = "# HELP vllm:num_requests_waiting waiting\n"
                + "# TYPE vllm:num_requests_waiting gauge\n"
                + "vllm:num_requests_waiting{model_name=\"a\",engine=\"0\"} 2.0\n"
                + "vllm:num_requests_waiting{model_name=\"b\"} 3 1700000000000\n"
                + "vllm:num_requests_waiting_by_reason{reason=\"x\"} 100\n"
                + "vllm:num_requests_running 4\n";
        assertEquals(5.0, PromText.sum(text, "vllm:num_requests_waiting").getAsDouble());
        assertEquals(4.0, PromText.sum(text, "vllm:num_requests_running").getAsDouble());
        assertTrue(PromText.sum(text, "vllm:gpu_cache_usage_perc").isEmpty());
        assertTrue(PromText.sum(null, "vllm:num_requests_waiting").isEmpty());
        assertTrue(PromText.sum("vllm:num_requests_waiting NaN\n", "vllm:num_requests_waiting")
                .isEmpty());
    }
}
