package io.ailb.sim.router.baseline;

import static io.ailb.sim.router.baseline.FakeCluster.concat;
import static io.ailb.sim.router.baseline.FakeCluster.range;
import static io.ailb.sim.router.baseline.FakeCluster.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.sim.model.SimRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimpleRoutersTest {
    @Test
    void randomUsesEveryHealthyBackendRoughlyEvenly() {
        RandomRouter router = new RandomRouter(3);
        FakeCluster cluster = new FakeCluster(4);
        int[] counts = new int[4];
        for (int i = 0; i < 4000; i++) {
            counts[router.route(request(16, i), cluster)]++;
        }
        for (int c : counts) {
            assertTrue(c > 850 && c < 1150, java.util.Arrays.toString(counts));
        }
    }

    @Test
    void roundRobinCyclesAndSkipsUnhealthy() {
        RoundRobinRouter router = new RoundRobinRouter();
        FakeCluster cluster = new FakeCluster(3);
        List<Integer> seen = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            seen.add(router.route(request(16, i), cluster));
        }
        assertEquals(List.of(0, 1, 2, 0, 1, 2, 0), seen);
        cluster.b(1).healthy = false;
        seen.clear();
        for (int i = 0; i < 4; i++) {
            seen.add(router.route(request(16, i), cluster));
        }
        assertTrue(!seen.contains(1) && seen.contains(0) && seen.contains(2), seen.toString());
    }

    @Test
    void leastInflightBalancesAndFollowsCompletions() {
        LeastInflightRouter router = new LeastInflightRouter(1);
        FakeCluster cluster = new FakeCluster(3);
        List<SimRequest> sent = new ArrayList<>();
        List<Integer> where = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            SimRequest r = request(16, i);
            sent.add(r);
            where.add(router.route(r, cluster));
        }
        assertEquals(2, router.inFlight(0));
        assertEquals(2, router.inFlight(1));
        assertEquals(2, router.inFlight(2));
        // both requests on backend 1 finish: the next two go there
        for (int i = 0; i < 6; i++) {
            if (where.get(i) == 1) {
                router.onComplete(sent.get(i), 1, 0);
            }
        }
        assertEquals(0, router.inFlight(1));
        assertEquals(1, router.route(request(16, 100), cluster));
        assertEquals(1, router.route(request(16, 101), cluster));
        // it ignores the backends' own numbers: it only knows what it counted
        cluster.b(0).inFlight = 1000;
        int next = router.route(request(16, 102), cluster);
        assertEquals(3, router.inFlight(next));
    }

    @Test
    void maxPrefixSticksToTheHolderWhateverItsLoad() {
        MaxPrefixRouter router = new MaxPrefixRouter(5);
        FakeCluster cluster = new FakeCluster(4);
        long[] shared = range(1, 8);
        int holder = router.route(request(16, shared), cluster);
        for (int i = 0; i < 200; i++) {
            assertEquals(holder, router.route(request(16, concat(shared, 10_000 + i)), cluster));
        }
        // a longer match elsewhere wins: route a longer chain to another backend first (only it healthy)
        cluster.onlyHealthy((holder + 1) % 4);
        long[] longer = concat(shared, 20_000, 20_001);
        assertEquals((holder + 1) % 4, router.route(request(16, longer), cluster));
        cluster.allHealthy();
        assertEquals((holder + 1) % 4, router.route(request(16, concat(longer, 20_002)), cluster));
        // no match anywhere: the least in-flight backend (neither of the two loaded ones)
        int cold = router.route(request(16, 99_999), cluster);
        assertNotEquals(holder, cold);
        assertNotEquals((holder + 1) % 4, cold);
    }

    @Test
    void maxPrefixBreaksMatchTiesByInflight() {
        MaxPrefixRouter router = new MaxPrefixRouter(5);
        FakeCluster cluster = new FakeCluster(2);
        long[] shared = range(1, 4);
        // the same prefix ends up on both backends, backend 0 with more in flight
        cluster.onlyHealthy(0);
        SimRequest a = request(16, shared);
        router.route(a, cluster);
        router.route(request(16, concat(shared, 50)), cluster);
        cluster.onlyHealthy(1);
        SimRequest c = request(16, shared);
        router.route(c, cluster);
        cluster.allHealthy();
        assertEquals(1, router.route(request(16, concat(shared, 51)), cluster));
        // backend 1 now has 2 in flight, backend 0 has 2: complete two on backend 0 and it wins the tie
        router.onComplete(a, 0, 0);
        router.onComplete(a, 0, 0);
        assertEquals(0, router.route(request(16, concat(shared, 52)), cluster));
    }

    @Test
    void greedyTtftPicksTheMinimumEstimateAmongHealthy() {
        TtftReferenceRouter router = new TtftReferenceRouter(false);
        assertEquals("greedy_ttft", router.name());
        FakeCluster cluster = new FakeCluster(4);
        SimRequest r = request(16, 1, 2, 3);
        cluster.b(0).ttftByRequest.put(r.id(), 900.0);
        cluster.b(1).ttftByRequest.put(r.id(), 120.0);
        cluster.b(2).ttftByRequest.put(r.id(), 80.5);
        cluster.b(3).ttftByRequest.put(r.id(), 300.0);
        assertEquals(2, router.route(r, cluster));
        cluster.b(2).healthy = false;
        assertEquals(1, router.route(r, cluster));
        // equal estimates: the one holding more of the prefix
        cluster.b(2).healthy = true;
        cluster.b(1).ttftByRequest.put(r.id(), 80.5);
        cluster.b(1).cachedByRequest.put(r.id(), 2);
        assertEquals(1, router.route(r, cluster));
    }

    @Test
    void lookaheadTtftUsesTheLookaheadEstimate() {
        TtftReferenceRouter greedy = new TtftReferenceRouter(false);
        TtftReferenceRouter lookahead = new TtftReferenceRouter(true);
        assertEquals("lookahead_ttft", lookahead.name());
        FakeCluster cluster = new FakeCluster(2);
        SimRequest r = request(16, 1, 2, 3);
        // backend 1's queue holds this request's prefix: blind it looks slower, with lookahead faster
        cluster.b(0).ttftByRequest.put(r.id(), 200.0);
        cluster.b(1).ttftByRequest.put(r.id(), 300.0);
        cluster.b(0).lookaheadByRequest.put(r.id(), 200.0);
        cluster.b(1).lookaheadByRequest.put(r.id(), 120.0);
        assertEquals(0, greedy.route(r, cluster));
        assertEquals(1, lookahead.route(r, cluster));
    }
}
