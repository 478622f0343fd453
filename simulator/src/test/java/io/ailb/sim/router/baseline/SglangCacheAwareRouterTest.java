package io.ailb.sim.router.baseline;

import static io.ailb.sim.router.baseline.FakeCluster.concat;
import static io.ailb.sim.router.baseline.FakeCluster.range;
import static io.ailb.sim.router.baseline.FakeCluster.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.sim.model.SimRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SglangCacheAwareRouterTest {
    @Test
    void defaultsAreTheDocumentedOnes() {
        assertEquals(0.3, SglangCacheAwareRouter.DEFAULT_CACHE_THRESHOLD);
        assertEquals(64, SglangCacheAwareRouter.DEFAULT_BALANCE_ABS_THRESHOLD);
        assertEquals(1.5, SglangCacheAwareRouter.DEFAULT_BALANCE_REL_THRESHOLD);
        assertEquals(1L << 24, SglangCacheAwareRouter.DEFAULT_MAX_TREE_TOKENS);
    }

    private static SglangCacheAwareRouter upstream() {
        return new SglangCacheAwareRouter(1, SglangCacheAwareRouter.LowMatch.MIN_LOAD);
    }

    private static SglangCacheAwareRouter v2025() {
        return new SglangCacheAwareRouter(1, SglangCacheAwareRouter.LowMatch.SMALLEST_TREE);
    }

    @Test
    void namesTellTheRuleApart() {
        assertEquals("sglang_cache_aware", upstream().name());
        assertEquals("sglang_cache_aware_2025", v2025().name());
    }

    @Test
    void followsTheCacheUntilImbalancedBeyondBothThresholdsThenMinLoad() {
        SglangCacheAwareRouter router = upstream();
        FakeCluster cluster = new FakeCluster(2);
        long[] shared = range(1, 10);
        // request 1: nothing cached anywhere → least loaded (both 0) → the first, backend 0
        assertEquals(0, router.route(request(16, concat(shared, 1000)), cluster));
        // requests 2..65 match 10 of 11 blocks (> 0.3): backend 0, whose load climbs to 65
        for (int k = 2; k <= 65; k++) {
            assertEquals(0, router.route(request(16, concat(shared, 1000 + k)), cluster), "request " + k);
        }
        assertEquals(65, router.load(0));
        // request 66: 65 − 0 > 64 and 65 > 1.5 × 0 → imbalanced → min load, affinity ignored
        assertEquals(1, router.route(request(16, concat(shared, 2000)), cluster));
        // the tree was updated with backend 1 anyway: it now holds the shared prefix too
        assertTrue(router.treeTokens(1) > 0);
    }

    @Test
    void absoluteGapAloneIsNotImbalance() {
        // thresholds scaled down: abs 4, rel 1.5
        SglangCacheAwareRouter router =
                new SglangCacheAwareRouter(1, SglangCacheAwareRouter.LowMatch.MIN_LOAD, 0.3, 4, 1.5, Long.MAX_VALUE);
        FakeCluster cluster = new FakeCluster(2);
        long[] shared = range(1, 10);
        // backend 1 carries 10 unrelated requests
        cluster.onlyHealthy(1);
        for (int i = 0; i < 10; i++) {
            router.route(request(16, 500 + i), cluster);
        }
        cluster.allHealthy();
        // backend 0 takes the shared prefix: first as min load (0..5 vs 10 is imbalanced), then by cache affinity.
        // At 15 vs 10 the gap 5 > 4 but 15 ≤ 1.5 × 10: still balanced. At 16 vs 10, 16 > 15: imbalanced.
        List<Integer> where = new ArrayList<>();
        for (int k = 0; k < 17; k++) {
            where.add(router.route(request(16, concat(shared, 3000 + k)), cluster));
        }
        for (int k = 0; k < 16; k++) {
            assertEquals(0, where.get(k), "request " + k + " " + where);
        }
        assertEquals(1, where.get(16), where.toString());
    }

    @Test
    void before14650ALowMatchRateWentToTheSmallestTree() {
        SglangCacheAwareRouter router = v2025();
        FakeCluster cluster = new FakeCluster(3);
        cluster.onlyHealthy(0);
        router.route(request(16, range(100, 20)), cluster); // backend 0: 20 blocks
        cluster.onlyHealthy(1);
        router.route(request(16, range(200, 5)), cluster); // backend 1: 5 blocks
        cluster.onlyHealthy(2);
        router.route(request(16, range(300, 9)), cluster); // backend 2: 9 blocks
        cluster.allHealthy();
        // 2 of 10 blocks match backend 0 (rate 0.2 ≤ 0.3) → smallest tree = backend 1
        assertEquals(1, router.route(request(16, concat(range(100, 2), range(900, 8))), cluster));
        // 4 of 10 match backend 0 (0.4 > 0.3) → longest match = backend 0
        assertEquals(0, router.route(request(16, concat(range(100, 4), range(950, 6))), cluster));
    }

    @Test
    void matchRateIsMeasuredInTokensWithAPartialLastBlock() {
        SglangCacheAwareRouter router = v2025();
        FakeCluster cluster = new FakeCluster(2);
        cluster.onlyHealthy(1);
        router.route(request(512, 1), cluster); // backend 1 holds block 1
        cluster.onlyHealthy(0);
        router.route(request(512, range(10, 30)), cluster); // backend 0 has the larger tree
        cluster.allHealthy();
        cluster.onlyHealthy(1);
        router.route(request(512, range(40, 40)), cluster); // now backend 1 has the larger tree
        cluster.allHealthy();
        // 4 blocks, the last one 10 tokens, 1 matched on backend 1: by blocks 1/4 = 0.25 would mean "smallest
        // tree" (backend 0); by tokens 512 / 1546 = 0.331 > 0.3 → longest match, backend 1
        SimRequest partial = new SimRequest(9_001, 0, null, 1546, 1, 512, List.of(1L, 80L, 81L, 82L), "{}");
        assertEquals(1, router.route(partial, cluster));
        // 512 / 1707 = 0.2999 → smallest tree, backend 0
        SimRequest low = new SimRequest(9_002, 0, null, 1707, 1, 512, List.of(1L, 90L, 91L, 92L), "{}");
        assertEquals(0, router.route(low, cluster));
    }

    @Test
    void treesAreBoundedByMaxTreeSizeWithLruLeavesEvictedFirst() {
        // 10 blocks of 16 tokens fit
        SglangCacheAwareRouter router =
                new SglangCacheAwareRouter(1, SglangCacheAwareRouter.LowMatch.MIN_LOAD, 0.3, 64, 1.5, 160);
        FakeCluster cluster = new FakeCluster(2).onlyHealthy(0);
        router.route(request(16, range(1, 6)), cluster); // chain A, 6 blocks
        router.route(request(16, range(100, 4)), cluster); // chain B, 4 blocks: full
        assertEquals(160, router.treeTokens(0));
        router.route(request(16, range(1, 3)), cluster); // touch A's first 3 blocks
        router.route(request(16, range(200, 3)), cluster); // chain C: 3 blocks must go
        assertEquals(160, router.treeTokens(0));
        // the 3 least recently used leaves went: A's tail (blocks 4..6). A's head and B survive.
        cluster.allHealthy();
        // chain B survived (more recent than A's tail): it still attracts its continuation to backend 0,
        // where an idle backend 1 would win on load without the match
        assertEquals(0, router.route(request(16, concat(range(100, 4), 555)), cluster));
    }

    /** Three backends: 0 has the largest tree but nothing in flight, 1 the smallest tree and 2 in flight. */
    private static FakeCluster loadedCluster(SglangCacheAwareRouter router) {
        FakeCluster cluster = new FakeCluster(3);
        cluster.onlyHealthy(0);
        SimRequest big = request(16, range(100, 20));
        router.route(big, cluster);
        router.onComplete(big, 0, 0);
        cluster.onlyHealthy(1);
        router.route(request(16, range(200, 2)), cluster);
        router.route(request(16, range(210, 2)), cluster);
        cluster.onlyHealthy(2);
        router.route(request(16, range(300, 9)), cluster);
        return cluster.allHealthy();
    }

    @Test
    void aLowMatchGoesToTheLeastLoadedWorkerSincePr14650() {
        SglangCacheAwareRouter router = upstream();
        FakeCluster cluster = loadedCluster(router);
        assertEquals(0, router.load(0));
        assertEquals(2, router.load(1));
        // nothing matches: least loaded (backend 0, the largest tree), not the smallest tree (backend 1)
        assertEquals(0, router.route(request(16, range(900, 10)), cluster));
        // the same history under the 2025 rule: smallest tree
        SglangCacheAwareRouter old = v2025();
        FakeCluster again = loadedCluster(old);
        assertEquals(1, old.route(request(16, range(900, 10)), again));
    }

    @Test
    void aTieOnTheLongestMatchGoesToTheNodesFirstTenantWhateverItsLoad() {
        SglangCacheAwareRouter router = upstream();
        FakeCluster cluster = new FakeCluster(2);
        long[] shared = range(1, 8);
        cluster.onlyHealthy(0);
        SimRequest a = request(16, shared);
        router.route(a, cluster);
        router.onComplete(a, 0, 0);
        cluster.onlyHealthy(1);
        SimRequest b = request(16, shared);
        router.route(b, cluster);
        router.onComplete(b, 1, 0);
        cluster.allHealthy();
        // both hold the 8 shared blocks: the node's first tenant takes it
        int first = router.route(request(16, concat(shared, 500)), cluster);
        int other = 1 - first;
        // load the first tenant with unrelated work (below the imbalance thresholds): it still gets the prefix
        cluster.onlyHealthy(first);
        for (int i = 0; i < 10; i++) {
            router.route(request(16, 600 + i), cluster);
        }
        cluster.allHealthy();
        assertTrue(router.load(first) > router.load(other));
        assertEquals(first, router.route(request(16, concat(shared, 501)), cluster));
    }

    @Test
    void imbalanceIsJudgedOverAllWorkersUnhealthyOnesIncluded() {
        SglangCacheAwareRouter router = upstream();
        FakeCluster cluster = new FakeCluster(3);
        long[] shared = range(1, 10);
        cluster.onlyHealthy(1);
        router.route(request(16, shared), cluster);
        for (int i = 0; i < 69; i++) {
            router.route(request(16, 1000 + i), cluster);
        }
        cluster.onlyHealthy(0);
        for (int i = 0; i < 69; i++) {
            router.route(request(16, 2000 + i), cluster);
        }
        // backends 0 and 1 healthy with 69 and 70 in flight; backend 2 unhealthy and idle: 70 − 0 > 64 and 70 > 0 →
        // imbalanced, so the request matching backend 1 goes to the least loaded healthy worker, backend 0
        cluster.onlyHealthy(0, 1);
        assertEquals(0, router.route(request(16, concat(shared, 77)), cluster));
    }
}
