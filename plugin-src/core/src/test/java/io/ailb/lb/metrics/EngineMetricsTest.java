package io.ailb.lb.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.LinkedHashSet;
import org.junit.jupiter.api.Test;

class EngineMetricsTest {
    @Test
    void vllmQueueFiguresAreSummedOverEngines() {
        EngineMetrics m = EngineMetrics.parse(Samples.VLLM, null);
        assertEquals(5.0, m.running());
        assertEquals(5.0, m.waiting());
    }

    @Test
    void kvCacheUsageIsAveragedOverEngines() {
        assertEquals(0.375, EngineMetrics.parse(Samples.VLLM, null).kvCacheUsage());
    }

    @Test
    void theOlderVllmGpuCacheMetricIsUnderstood() {
        assertEquals(0.125, EngineMetrics.parse(Samples.VLLM_V0, null).kvCacheUsage());
    }

    @Test
    void theNewestLoraSeriesGivesTheActiveAdapters() {
        EngineMetrics m = EngineMetrics.parse(Samples.VLLM, null);
        assertEquals(new LinkedHashSet<>(Arrays.asList("sql-lora", "chat-lora")), m.activeAdapters());
        assertEquals(2, m.maxAdapters());
    }

    @Test
    void sglangMetricsMapOntoTheSameFigures() {
        EngineMetrics m = EngineMetrics.parse(Samples.SGLANG, null);
        assertEquals(7.0, m.running());
        assertEquals(12.0, m.waiting());
        assertEquals(0.75, m.kvCacheUsage());
    }

    @Test
    void aMissingLoraFamilyLeavesLoraUnknownButTheRestUsable() {
        EngineMetrics m = EngineMetrics.parse(Samples.VLLM_V0, null);
        assertFalse(m.loraKnown());
        assertEquals(0.0, m.waiting());
    }

    @Test
    void aMissingQueueFamilyIsUnknown() {
        assertTrue(Double.isNaN(
                EngineMetrics.parse("vllm:kv_cache_usage_perc 0.1\n", null).waiting()));
    }

    @Test
    void anExtraFamilyIsKeptForTargetMetric() {
        assertEquals(
                12.5,
                EngineMetrics.parse(Samples.VLLM, "vllm:time_to_first_token_seconds_sum")
                        .value("vllm:time_to_first_token_seconds_sum"));
    }

    @Test
    void vllmsKvCacheIsItsBlocksTimesTheBlockSizeTheSmallestEngineOfSeveral() {
        String info = "# TYPE vllm:cache_config_info gauge\n"
                + "vllm:cache_config_info{block_size=\"16\",cache_dtype=\"auto\",engine=\"0\",num_gpu_blocks=\"2000\"} 1.0\n"
                + "vllm:cache_config_info{block_size=\"16\",cache_dtype=\"auto\",engine=\"1\",num_gpu_blocks=\"1500\"} 1.0\n";
        assertEquals(24_000.0, EngineMetrics.parse(info, null).kvCacheTokens());
    }

    @Test
    void anUnprofiledVllmCacheOrNoCacheFamilyIsUnknown() {
        assertTrue(Double.isNaN(
                EngineMetrics.parse("vllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"None\"} 1.0\n", null)
                        .kvCacheTokens()));
        assertTrue(Double.isNaN(EngineMetrics.parse(Samples.VLLM, null).kvCacheTokens()));
    }

    @Test
    void sglangsKvCacheIsItsMaxTotalTokens() {
        assertEquals(
                161_721.0,
                EngineMetrics.parse(
                                Samples.SGLANG + "sglang:max_total_num_tokens{model_name=\"qwen\"} 161721.0\n", null)
                        .kvCacheTokens());
    }

    @Test
    void theSmallerKnownFigureIgnoresUnknownOnes() {
        assertEquals(3.0, EngineMetrics.smallerKnown(Double.NaN, 3.0));
        assertEquals(3.0, EngineMetrics.smallerKnown(3.0, Double.NaN));
        assertEquals(2.0, EngineMetrics.smallerKnown(3.0, 2.0));
        assertEquals(2.0, EngineMetrics.smallerKnown(2.0, 3.0));
        assertTrue(Double.isNaN(EngineMetrics.smallerKnown(Double.NaN, Double.NaN)));
    }

    @Test
    void aPageWithoutEngineMetricsIsEmpty() {
        assertTrue(EngineMetrics.parse("<html>not metrics</html>\n", null).isEmpty());
    }
}
