package io.ailb.lb.policy.cacheaware;

import static io.ailb.lb.policy.Fixtures.CLUSTER;
import static io.ailb.lb.policy.Fixtures.up;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ailb.lb.model.Endpoint;
import io.ailb.lb.policy.ScrapeRequest;
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
        assertEquals(12_800, new ReportedKvCache("/metrics").smallestTokens(CLUSTER, hosts, 0));
    }

    @Test
    void noReportedSizeIsZero() {
        assertEquals(
                0,
                new ReportedKvCache("/metrics")
                        .smallestTokens(CLUSTER, Arrays.asList(up("10.0.0.1:8000"), up("10.0.0.2:8000", "")), 0));
    }

    @Test
    void aHostsPageIsReadAgainOnlyAfterAMinute() {
        ReportedKvCache cache = new ReportedKvCache("/metrics");
        assertEquals(16_000, cache.smallestTokens(CLUSTER, Arrays.asList(up("10.0.0.1:8000", vllm(1000))), 0));
        List<Endpoint> resized = Arrays.asList(up("10.0.0.1:8000", vllm(500)));
        assertEquals(16_000, cache.smallestTokens(CLUSTER, resized, ReportedKvCache.REREAD_MILLIS - 1));
        assertEquals(8_000, cache.smallestTokens(CLUSTER, resized, ReportedKvCache.REREAD_MILLIS));
    }

    @Test
    void aHostWithoutMetricsIsLookedAtAgainOnTheNextRequest() {
        ReportedKvCache cache = new ReportedKvCache("/metrics");
        assertEquals(0, cache.smallestTokens(CLUSTER, Arrays.asList(up("10.0.0.1:8000")), 0));
        assertEquals(16_000, cache.smallestTokens(CLUSTER, Arrays.asList(up("10.0.0.1:8000", vllm(1000))), 1));
    }

    @Test
    void aHostWithoutMetricsInItsInfoIsScrapedOnceAMinuteAndItsPageCounts() {
        ReportedKvCache cache = new ReportedKvCache("/metrics");
        List<Endpoint> hosts = Arrays.asList(up("10.0.0.1:8000"), up("10.0.0.2:8000", vllm(1000)));
        assertEquals(16_000, cache.smallestTokens(CLUSTER, hosts, 0));
        assertEquals(
                List.of(new ScrapeRequest(
                        CLUSTER,
                        "10.0.0.1:8000",
                        "/metrics",
                        ReportedKvCache.SCRAPE_TIMEOUT_MILLIS,
                        ReportedKvCache.SCRAPE_MAX_BYTES)),
                cache.dueScrapes(0),
                "only the host without metrics");
        cache.onScrapeResult("10.0.0.1:8000", 200, "sglang:max_total_num_tokens 9000\n", 10);
        assertEquals(9_000, cache.smallestTokens(CLUSTER, hosts, 20));
        assertEquals(List.of(), cache.dueScrapes(ReportedKvCache.REREAD_MILLIS - 1));
        assertEquals(1, cache.dueScrapes(ReportedKvCache.REREAD_MILLIS).size());
    }

    @Test
    void aFailingScrapeLeavesTheSizeUnknown() {
        ReportedKvCache cache = new ReportedKvCache("/metrics");
        List<Endpoint> hosts = Arrays.asList(up("10.0.0.1:8000"));
        cache.smallestTokens(CLUSTER, hosts, 0);
        cache.dueScrapes(0);
        cache.onScrapeResult("10.0.0.1:8000", 404, "not found", 10);
        assertEquals(0, cache.smallestTokens(CLUSTER, hosts, 20));
    }
}
