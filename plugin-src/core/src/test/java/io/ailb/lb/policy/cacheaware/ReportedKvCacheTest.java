package io.ailb.lb.policy.cacheaware;

import static io.ailb.lb.policy.Fixtures.up;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ailb.lb.model.Endpoint;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReportedKvCacheTest {
    private static String vllm(int blocks) {
        return "vllm:num_requests_running 0\n" + "vllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"" + blocks
                + "\"} 1.0\n";
    }

    @Test
    void theSmallestReportedSizeCountsHostsWithoutOneAreLeftOut() {
        List<Endpoint> hosts = Arrays.asList(
                up("10.0.0.1:8000", vllm(1000)),
                up("10.0.0.2:8000"),
                up("10.0.0.3:8000", "vllm:num_requests_running 0\n"),
                up("10.0.0.4:8000", vllm(800)));
        assertEquals(12_800, new ReportedKvCache().smallestTokens(hosts, 0));
    }

    @Test
    void noReportedSizeIsZero() {
        assertEquals(
                0,
                new ReportedKvCache().smallestTokens(Arrays.asList(up("10.0.0.1:8000"), up("10.0.0.2:8000", "")), 0));
    }

    @Test
    void aHostsPageIsReadAgainOnlyAfterAMinute() {
        ReportedKvCache cache = new ReportedKvCache();
        assertEquals(16_000, cache.smallestTokens(Arrays.asList(up("10.0.0.1:8000", vllm(1000))), 0));
        List<Endpoint> resized = Arrays.asList(up("10.0.0.1:8000", vllm(500)));
        assertEquals(16_000, cache.smallestTokens(resized, ReportedKvCache.REREAD_MILLIS - 1));
        assertEquals(8_000, cache.smallestTokens(resized, ReportedKvCache.REREAD_MILLIS));
    }

    @Test
    void aHostWithoutMetricsIsLookedAtAgainOnTheNextRequest() {
        ReportedKvCache cache = new ReportedKvCache();
        assertEquals(0, cache.smallestTokens(Arrays.asList(up("10.0.0.1:8000")), 0));
        assertEquals(16_000, cache.smallestTokens(Arrays.asList(up("10.0.0.1:8000", vllm(1000))), 1));
    }
}
