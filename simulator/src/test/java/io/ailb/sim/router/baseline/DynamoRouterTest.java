package io.ailb.sim.router.baseline;

import static io.ailb.sim.router.baseline.FakeCluster.concat;
import static io.ailb.sim.router.baseline.FakeCluster.range;
import static io.ailb.sim.router.baseline.FakeCluster.request;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ailb.sim.model.SimRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

class DynamoRouterTest {
    private static final double EPS = 1e-9;

    @Test
    void documentedExamplePicksTheWorkerCostingTen() {
        double[] prefill = {8, 5, 2};
        double[] decode = {10, 5, 9};
        assertEquals(18, DynamoRouter.cost(8, 10, 1.0));
        assertEquals(10, DynamoRouter.cost(5, 5, 1.0));
        assertEquals(11, DynamoRouter.cost(2, 9, 1.0));
        assertEquals(1, DynamoRouter.argMin(prefill, decode, DynamoRouter.DEFAULT_OVERLAP_WEIGHT));
        // weight 0 is pure load balancing
        assertEquals(1, DynamoRouter.argMin(prefill, decode, 0.0));
        // a heavy weight favours the best cache
        assertEquals(2, DynamoRouter.argMin(prefill, decode, 5.0));
    }

    @Test
    void costsThroughRoutingAddTheRequestsNewBlocksToTheActiveOnes() {
        DynamoRouter router = new DynamoRouter(1, DynamoRouter.Overlap.KV_EVENTS);
        FakeCluster cluster = new FakeCluster(3);
        // active blocks 10, 5, 9: one request per worker, prefill finished (first token seen)
        int[] decode = {10, 5, 9};
        for (int w = 0; w < 3; w++) {
            cluster.onlyHealthy(w);
            SimRequest load = request(16, range(1000 * (w + 1), decode[w]));
            assertEquals(w, router.route(load, cluster));
            router.onFirstToken(load, w, 0);
        }
        cluster.allHealthy();
        // a 16-block request of which the workers hold 8, 11, 14 blocks: uncached prefill 8, 5, 2; none of its
        // blocks is active anywhere, so each worker's decode load grows by 16
        SimRequest q = request(16, range(1, 16));
        cluster.b(0).cachedByRequest.put(q.id(), 8);
        cluster.b(1).cachedByRequest.put(q.id(), 11);
        cluster.b(2).cachedByRequest.put(q.id(), 14);
        List<DynamoRouter.Cost> costs = router.costs(q, cluster);
        assertCost(costs.get(0), 8, 26, 34);
        assertCost(costs.get(1), 5, 21, 26);
        assertCost(costs.get(2), 2, 25, 27);
        assertEquals(1, router.route(q, cluster));
    }

    @Test
    void theDecodeTermCountsTheUnionOfActiveAndRequestBlocks() {
        DynamoRouter router = new DynamoRouter(1, DynamoRouter.Overlap.KV_EVENTS);
        FakeCluster cluster = new FakeCluster(2).onlyHealthy(0);
        router.route(request(16, range(1, 4)), cluster);
        cluster.allHealthy();
        SimRequest probe = request(16, concat(range(1, 4), 5));
        // worker 0: blocks 1..4 active, the probe adds only block 5; worker 1: all 5 are new
        assertEquals(5, router.costs(probe, cluster).get(0).decodeBlocks(), EPS);
        assertEquals(5, router.costs(probe, cluster).get(1).decodeBlocks(), EPS);
        SimRequest other = request(16, range(100, 3));
        assertEquals(4 + 3, router.costs(other, cluster).get(0).decodeBlocks(), EPS);
        assertEquals(3, router.costs(other, cluster).get(1).decodeBlocks(), EPS);
    }

    @Test
    void equalCostsGoToTheSmallerTreeThenAtRandom() {
        DynamoRouter router = new DynamoRouter(1, DynamoRouter.Overlap.KV_EVENTS);
        FakeCluster cluster = new FakeCluster(3);
        cluster.b(0).cachedBlocks = 10;
        cluster.b(1).cachedBlocks = 3;
        cluster.b(2).cachedBlocks = 7;
        SimRequest r = request(16, range(1, 4));
        assertEquals(1, router.route(r, cluster));
        router.onComplete(r, 1, 0);
        cluster.b(1).cachedBlocks = 10;
        cluster.b(2).cachedBlocks = 10;
        int[] counts = new int[3];
        for (int i = 0; i < 300; i++) {
            SimRequest s = request(16, range(1000 + 10 * i, 4));
            int w = router.route(s, cluster);
            router.onComplete(s, w, 0);
            counts[w]++;
        }
        for (int c : counts) {
            assertEquals(100, c, 35);
        }
    }

    @Test
    void prefillIsReleasedAtFirstTokenAndDecodeBlocksAtCompletion() {
        DynamoRouter router = new DynamoRouter(1, DynamoRouter.Overlap.KV_EVENTS);
        FakeCluster cluster = new FakeCluster(2).onlyHealthy(0);
        SimRequest a = request(16, range(1, 4));
        SimRequest b = request(16, concat(range(1, 4), 9)); // shares 4 blocks with a
        router.route(a, cluster);
        router.route(b, cluster);
        cluster.allHealthy();
        SimRequest probe = request(16, 500);
        DynamoRouter.Cost c0 = router.costs(probe, cluster).get(0);
        assertEquals(4 + 5 + 1, c0.prefillBlocks(), EPS); // pending 4 + 5, plus the probe's own block
        assertEquals(5 + 1, c0.decodeBlocks(), EPS); // distinct blocks 1..4 and 9, plus the probe's
        router.onFirstToken(a, 0, 10);
        assertEquals(5 + 1, router.costs(probe, cluster).get(0).prefillBlocks(), EPS);
        router.onComplete(a, 0, 20);
        c0 = router.costs(probe, cluster).get(0);
        assertEquals(5 + 1, c0.prefillBlocks(), EPS);
        assertEquals(5 + 1, c0.decodeBlocks(), EPS); // b still holds 1..4 and 9
        router.onComplete(b, 0, 30); // completion without a first token releases the prefill too
        c0 = router.costs(probe, cluster).get(0);
        assertEquals(1, c0.prefillBlocks(), EPS);
        assertEquals(1, c0.decodeBlocks(), EPS);
    }

    @Test
    void approximateModeRemembersRoutedBlocksFor120Seconds() {
        DynamoRouter router = new DynamoRouter(1, DynamoRouter.Overlap.APPROXIMATE);
        FakeCluster cluster = new FakeCluster(3);
        SimRequest first = request(16, range(1, 20));
        int holder = router.route(first, cluster);
        router.onFirstToken(first, holder, 0);
        router.onComplete(first, holder, 0);
        cluster.now = 60_000;
        SimRequest next = request(16, concat(range(1, 20), 77));
        assertEquals(20, router.costs(next, cluster).get(holder).overlapBlocks());
        assertEquals(holder, router.route(next, cluster));
        router.onComplete(next, holder, cluster.now);
        cluster.now = 60_000 + DynamoRouter.APPROX_TTL_MS + 1;
        assertEquals(
                0, router.costs(request(16, range(1, 20)), cluster).get(holder).overlapBlocks());
    }

    private static void assertCost(DynamoRouter.Cost c, double prefill, double decode, double cost) {
        assertEquals(prefill, c.prefillBlocks(), EPS, c.toString());
        assertEquals(decode, c.decodeBlocks(), EPS, c.toString());
        assertEquals(cost, c.cost(), EPS, c.toString());
    }
}
