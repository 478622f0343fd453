package io.ailb.sim.router.baseline;

import static io.ailb.sim.router.baseline.FakeCluster.request;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ailb.sim.model.SimRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

class LlmdRouterTest {
    private static final double EPS = 1e-9;

    private static FakeCluster cluster() {
        FakeCluster cluster = new FakeCluster(3);
        // backend 0: the scraped text says 5 waiting and 50% KV even though the live values differ (stale scrape)
        cluster.b(0).waiting = 0;
        cluster.b(0).kvUsage = 0.0;
        cluster.b(0).metricsText = "# HELP vllm:num_requests_waiting Number of requests waiting.\n"
                + "# TYPE vllm:num_requests_waiting gauge\n"
                + "vllm:num_requests_waiting{model_name=\"m\"} 5.0\n"
                + "vllm:num_requests_running{model_name=\"m\"} 7.0\n"
                + "vllm:gpu_cache_usage_perc{model_name=\"m\"} 0.5\n";
        cluster.b(1).metricsText =
                "vllm:num_requests_waiting{model_name=\"m\"} 1\n" + "vllm:kv_cache_usage_perc{model_name=\"m\"} 0.2\n";
        // backend 2 publishes nothing yet: the live values are used
        cluster.b(2).metricsText = "";
        cluster.b(2).waiting = 3;
        cluster.b(2).kvUsage = 0.9;
        return cluster;
    }

    @Test
    void picksTheHighestWeightedScoreWithExactNumbers() {
        LlmdRouter router = new LlmdRouter(1, LlmdRouter.Profile.APPROXIMATE);
        FakeCluster cluster = cluster();
        cluster.onlyHealthy(0);
        router.route(request(16, 1, 2), cluster); // backend 0 now holds blocks 1, 2 in the router's index
        cluster.allHealthy();
        SimRequest q = request(16, 1, 2, 3, 4);
        List<LlmdRouter.Score> s = router.score(q, cluster);
        // prefix 2/4, 0, 0; queue (5−q)/(5−1): 0, 1, 0.5; kv 1−u: 0.5, 0.8, 0.1
        assertScore(s.get(0), 0.5, 0.0, 0.5, 3 * 0.5 + 2 * 0.0 + 2 * 0.5); // 2.5
        assertScore(s.get(1), 0.0, 1.0, 0.8, 3 * 0.0 + 2 * 1.0 + 2 * 0.8); // 3.6
        assertScore(s.get(2), 0.0, 0.5, 0.1, 3 * 0.0 + 2 * 0.5 + 2 * 0.1); // 1.2
        assertEquals(1, router.route(q, cluster));
    }

    @Test
    void aFullPrefixMatchOutweighsTheLoadTerms() {
        LlmdRouter router = new LlmdRouter(1, LlmdRouter.Profile.APPROXIMATE);
        FakeCluster cluster = cluster();
        cluster.onlyHealthy(0);
        router.route(request(16, 1, 2, 3, 4), cluster);
        cluster.allHealthy();
        SimRequest q = request(16, 1, 2, 3, 4);
        List<LlmdRouter.Score> s = router.score(q, cluster);
        assertEquals(4.0, s.get(0).total(), EPS); // 3·1 + 2·0 + 2·0.5 beats backend 1's 3.6
        assertEquals(0, router.route(q, cluster));
    }

    @Test
    void equalQueuesScoreOneAndTiesAreRandom() {
        LlmdRouter router = new LlmdRouter(9, LlmdRouter.Profile.APPROXIMATE);
        FakeCluster cluster = new FakeCluster(3);
        int[] counts = new int[3];
        for (int i = 0; i < 300; i++) {
            SimRequest r = request(16, 10_000 + i);
            for (LlmdRouter.Score s : router.score(r, cluster)) {
                assertEquals(1.0, s.queue(), EPS);
                assertEquals(4.0, s.total(), EPS);
            }
            counts[router.route(r, cluster)]++;
        }
        for (int c : counts) {
            assertEquals(100, c, 35);
        }
    }

    @Test
    void defaultWeightsAreTheHelmChartOnes() {
        assertEquals(3, LlmdRouter.DEFAULT_PREFIX_WEIGHT);
        assertEquals(2, LlmdRouter.DEFAULT_QUEUE_WEIGHT);
        assertEquals(2, LlmdRouter.DEFAULT_KV_WEIGHT);
        assertEquals(31_250, LlmdRouter.DEFAULT_LRU_CAPACITY_PER_SERVER);
        assertEquals(2, LlmdRouter.PRECISE_PREFIX_WEIGHT);
        assertEquals(1, LlmdRouter.PRECISE_QUEUE_WEIGHT);
        assertEquals(1, LlmdRouter.PRECISE_KV_WEIGHT);
        assertEquals("llmd", new LlmdRouter(1, LlmdRouter.Profile.APPROXIMATE).name());
        assertEquals("llmd_precise", new LlmdRouter(1, LlmdRouter.Profile.PRECISE).name());
    }

    @Test
    void autoTuneSizesEachPodsIndexFromItsReportedCacheBlocks() {
        FakeCluster cluster = new FakeCluster(2);
        cluster.b(0).metricsText =
                "vllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"4\",model_name=\"m\"} 1.0\n";
        assertEquals(64, LlmdRouter.lruCapacityTokens(cluster.b(0)));
        assertEquals(31_250 * 16, LlmdRouter.lruCapacityTokens(cluster.b(1)), "defaults without the metric");

        LlmdRouter router = new LlmdRouter(1, LlmdRouter.Profile.APPROXIMATE);
        cluster.onlyHealthy(0);
        SimRequest a = request(16, 1, 2, 3, 4);
        router.route(a, cluster);
        assertEquals(1.0, router.score(request(16, 1, 2, 3, 4), cluster).get(0).prefix(), EPS);
        router.route(request(16, 10, 11, 12, 13), cluster);
        // backend 0 caches 4 blocks of 16 tokens: the second request pushed the first one out of its index
        assertEquals(0.0, router.score(request(16, 1, 2, 3, 4), cluster).get(0).prefix(), EPS);
        // backend 1 reports nothing: the default capacity keeps both
        cluster.onlyHealthy(1);
        router.route(request(16, 1, 2, 3, 4), cluster);
        router.route(request(16, 10, 11, 12, 13), cluster);
        cluster.allHealthy();
        assertEquals(1.0, router.score(request(16, 1, 2, 3, 4), cluster).get(1).prefix(), EPS);
    }

    @Test
    void thePreciseProfileScoresTheExactCacheMinMaxNormalisedAmongPodsWithHits() {
        LlmdRouter router = new LlmdRouter(1, LlmdRouter.Profile.PRECISE);
        FakeCluster cluster = new FakeCluster(3);
        SimRequest q = request(16, 1, 2, 3, 4, 5, 6, 7, 8);
        cluster.b(1).cachedByRequest.put(q.id(), 4);
        cluster.b(2).cachedByRequest.put(q.id(), 6);
        cluster.b(2).metricsText = "vllm:num_requests_waiting{model_name=\"m\"} 2\n";
        List<LlmdRouter.Score> s = router.score(q, cluster);
        // no hit → 0; hits 4 and 6 → (4 − 4) / 2 = 0 and 1; queue (2 − q) / 2: 1, 1, 0; kv 1 − 0
        assertScore(s.get(0), 0.0, 1.0, 1.0, 2 * 0.0 + 1.0 + 1.0);
        assertScore(s.get(1), 0.0, 1.0, 1.0, 2 * 0.0 + 1.0 + 1.0);
        assertScore(s.get(2), 1.0, 0.0, 1.0, 2 * 1.0 + 0.0 + 1.0);
        assertEquals(2, router.route(q, cluster));
        // a single pod with hits scores 1.0 however few they are
        SimRequest r = request(16, 1, 2, 3, 4, 5, 6, 7, 8);
        cluster.b(0).cachedByRequest.put(r.id(), 1);
        assertEquals(1.0, router.score(r, cluster).get(0).prefix(), EPS);
    }

    private static void assertScore(LlmdRouter.Score s, double prefix, double queue, double kv, double total) {
        assertEquals(prefix, s.prefix(), EPS, "prefix of " + s);
        assertEquals(queue, s.queue(), EPS, "queue of " + s);
        assertEquals(kv, s.kv(), EPS, "kv of " + s);
        assertEquals(total, s.total(), EPS, "total of " + s);
    }
}
