package io.ailb.sim.router.baseline;

import static io.ailb.sim.router.baseline.FakeCluster.concat;
import static io.ailb.sim.router.baseline.FakeCluster.range;
import static io.ailb.sim.router.baseline.FakeCluster.request;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ailb.sim.model.SimRequest;
import org.junit.jupiter.api.Test;

class SmgCacheAwareRouterTest {
    private static final long[] SHARED = range(1, 10);

    /** {@code holders} hold the shared prefix; then backend i carries {@code loads[i]} unrelated requests. */
    private static FakeCluster cluster(SmgCacheAwareRouter router, int[] loads, int... holders) {
        FakeCluster cluster = new FakeCluster(loads.length);
        for (int h : holders) {
            cluster.onlyHealthy(h);
            SimRequest r = request(16, SHARED);
            router.route(r, cluster);
            router.onComplete(r, h, 0);
        }
        for (int b = 0; b < loads.length; b++) {
            cluster.onlyHealthy(b);
            for (int i = 0; i < loads[b]; i++) {
                router.route(request(16, 10_000 * (b + 1) + i), cluster);
            }
        }
        return cluster.allHealthy();
    }

    @Test
    void aHitGoesToTheLeastLoadedOfTheTenantsHoldingThePrefix() {
        SmgCacheAwareRouter router = new SmgCacheAwareRouter(1);
        FakeCluster cluster = cluster(router, new int[] {5, 2, 0}, 0, 1);
        // backend 2 is idle but does not hold the prefix
        assertEquals(1, router.route(request(16, concat(SHARED, 77)), cluster));
    }

    @Test
    void aMissGoesToTheLeastLoadedWorker() {
        SmgCacheAwareRouter router = new SmgCacheAwareRouter(1);
        FakeCluster cluster = cluster(router, new int[] {3, 1, 2}, 0);
        assertEquals(1, router.route(request(16, range(500, 10)), cluster));
    }

    @Test
    void aGatedHolderSpillsToTheLeastLoadedWorkerWhichThenHoldsThePrefixToo() {
        // abs 2, rel 1.5: loads 10, 0, 0 → mean 3.33; 10 > 5 and 10 > 5.33 → the holder is gated
        SmgCacheAwareRouter router = new SmgCacheAwareRouter(1, 0.3, 2, 1.5, Long.MAX_VALUE);
        FakeCluster cluster = cluster(router, new int[] {10, 0, 0}, 0);
        assertEquals(1, router.route(request(16, concat(SHARED, 77)), cluster));
        // the spill target joined the tenants: the next request of the prefix picks it among the two holders
        assertEquals(1, router.route(request(16, concat(SHARED, 78)), cluster));
        assertEquals(2, router.load(1));
    }

    @Test
    void noFleetWideImbalanceSwitchOnlyThePerRequestGate() {
        // SGLang's rule would see 70 − 0 > 64 and 70 > 1.5 × 0 and send everything to the least loaded worker; here
        // the holder (3 in flight, under the mean of 24.3) keeps the prefix
        SmgCacheAwareRouter router = new SmgCacheAwareRouter(1);
        FakeCluster cluster = cluster(router, new int[] {70, 3, 0}, 1);
        assertEquals(1, router.route(request(16, concat(SHARED, 77)), cluster));
    }
}
