package io.ailb.lb.policy.cacheaware;

import static io.ailb.lb.policy.Fixtures.CLUSTER;
import static io.ailb.lb.policy.Fixtures.up;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ailb.lb.model.Endpoint;
import io.ailb.lb.policy.ScrapeRequest;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReportedMetricsTest {
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
        assertEquals(12_800, new ReportedMetrics("/metrics").smallestTokens(CLUSTER, hosts, 0));
    }

    @Test
    void noReportedSizeIsZero() {
        assertEquals(
                0,
                new ReportedMetrics("/metrics")
                        .smallestTokens(CLUSTER, Arrays.asList(up("10.0.0.1:8000"), up("10.0.0.2:8000", "")), 0));
    }

    @Test
    void aHostsPageIsReadAgainOnlyAfterTheRereadPeriod() {
        ReportedMetrics cache = new ReportedMetrics("/metrics");
        assertEquals(16_000, cache.smallestTokens(CLUSTER, Arrays.asList(up("10.0.0.1:8000", vllm(1000))), 0));
        List<Endpoint> resized = Arrays.asList(up("10.0.0.1:8000", vllm(500)));
        assertEquals(16_000, cache.smallestTokens(CLUSTER, resized, ReportedMetrics.REREAD_MILLIS - 1));
        assertEquals(8_000, cache.smallestTokens(CLUSTER, resized, ReportedMetrics.REREAD_MILLIS));
    }

    @Test
    void aHostWithoutMetricsIsLookedAtAgainOnTheNextRequest() {
        ReportedMetrics cache = new ReportedMetrics("/metrics");
        assertEquals(0, cache.smallestTokens(CLUSTER, Arrays.asList(up("10.0.0.1:8000")), 0));
        assertEquals(16_000, cache.smallestTokens(CLUSTER, Arrays.asList(up("10.0.0.1:8000", vllm(1000))), 1));
    }

    @Test
    void aHostWithoutMetricsInItsInfoIsScrapedEachRereadPeriodAndItsPageCounts() {
        ReportedMetrics cache = new ReportedMetrics("/metrics");
        List<Endpoint> hosts = Arrays.asList(up("10.0.0.1:8000"), up("10.0.0.2:8000", vllm(1000)));
        assertEquals(16_000, cache.smallestTokens(CLUSTER, hosts, 0));
        assertEquals(
                List.of(new ScrapeRequest(
                        CLUSTER,
                        "10.0.0.1:8000",
                        "/metrics",
                        ReportedMetrics.SCRAPE_TIMEOUT_MILLIS,
                        ReportedMetrics.SCRAPE_MAX_BYTES)),
                cache.dueScrapes(0),
                "only the host without metrics");
        cache.onScrapeResult("10.0.0.1:8000", 200, "sglang:max_total_num_tokens 9000\n", 10);
        assertEquals(9_000, cache.smallestTokens(CLUSTER, hosts, 20));
        assertEquals(List.of(), cache.dueScrapes(ReportedMetrics.REREAD_MILLIS - 1));
        assertEquals(1, cache.dueScrapes(ReportedMetrics.REREAD_MILLIS).size());
    }

    private static String firstTokens(double seconds, int count) {
        return "vllm:time_to_first_token_seconds_sum{model_name=\"m\"} " + seconds + "\n"
                + "vllm:time_to_first_token_seconds_count{model_name=\"m\"} " + count + "\n";
    }

    @Test
    void theFirstTokensHostsReportTeachThePrefillRateFromTheInfoAndFromScrapes() {
        ReportedMetrics reported = new ReportedMetrics("/metrics");
        List<Endpoint> hosts = Arrays.asList(up("10.0.0.1:8000", firstTokens(0, 0)), up("10.0.0.2:8000"));
        reported.smallestTokens(CLUSTER, hosts, 0);
        reported.dueScrapes(0);
        reported.onScrapeResult(
                "10.0.0.2:8000",
                200,
                "sglang:time_to_first_token_seconds_sum 100\n" + "sglang:time_to_first_token_seconds_count 1000\n",
                10);
        for (int i = 0; i < 100; i++) {
            reported.prefillRate().routed("10.0.0.1:8000", 200, 10_000, 20);
            reported.prefillRate().routed("10.0.0.2:8000", 200, 10_000, 20);
        }
        List<Endpoint> later = Arrays.asList(up("10.0.0.1:8000", firstTokens(30, 100)), up("10.0.0.2:8000"));
        reported.smallestTokens(CLUSTER, later, ReportedMetrics.REREAD_MILLIS - 1);
        assertEquals(10_000, reported.prefillRate().tokensPerSecond(10_000), "the page is not read again yet");
        reported.smallestTokens(CLUSTER, later, ReportedMetrics.REREAD_MILLIS);
        // Expected in 0.2 s, came in 0.3 s.
        assertEquals(10_000 * Math.sqrt(0.2 / 0.3), reported.prefillRate().tokensPerSecond(10_000), 1e-6);
        reported.dueScrapes(ReportedMetrics.REREAD_MILLIS);
        reported.onScrapeResult(
                "10.0.0.2:8000",
                200,
                "sglang:time_to_first_token_seconds_sum 110\n" + "sglang:time_to_first_token_seconds_count 1100\n",
                ReportedMetrics.REREAD_MILLIS);
        assertEquals(
                2 * 2_000 / (Math.sqrt(0.2 * 0.3) + Math.sqrt(0.2 * 0.1)),
                reported.prefillRate().tokensPerSecond(10_000),
                1e-6,
                "and then 0.1 s on the other host");
    }

    @Test
    void aFailingScrapeLeavesTheSizeUnknown() {
        ReportedMetrics cache = new ReportedMetrics("/metrics");
        List<Endpoint> hosts = Arrays.asList(up("10.0.0.1:8000"));
        cache.smallestTokens(CLUSTER, hosts, 0);
        cache.dueScrapes(0);
        cache.onScrapeResult("10.0.0.1:8000", 404, "not found", 10);
        assertEquals(0, cache.smallestTokens(CLUSTER, hosts, 20));
    }
}
