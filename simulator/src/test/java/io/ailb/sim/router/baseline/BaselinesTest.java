package io.ailb.sim.router.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.sim.model.SimRequest;
import io.ailb.sim.router.Router;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BaselinesTest {
    @Test
    void everyNameCreatesARouterOfThatName() {
        assertEquals(
                List.of(
                        "random",
                        "round_robin",
                        "least_inflight",
                        "max_prefix",
                        "sglang_cache_aware",
                        "sglang_cache_aware_2025",
                        "smg_cache_aware",
                        "llmd",
                        "llmd_precise",
                        "dynamo",
                        "dynamo_kv_events",
                        "greedy_ttft",
                        "lookahead_ttft"),
                Baselines.names());
        for (String name : Baselines.names()) {
            assertEquals(name, Baselines.create(name, 1).name());
        }
    }

    @Test
    void unknownNameListsTheKnownOnes() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> Baselines.create("consistent_hash", 1));
        assertTrue(e.getMessage().contains("consistent_hash"), e.getMessage());
        for (String name : Baselines.names()) {
            assertTrue(e.getMessage().contains(name), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> Baselines.create(null, 1));
    }

    @Test
    void noRouterPicksAnUnhealthyBackendWhileAHealthyOneExists() {
        for (String name : Baselines.names()) {
            Router router = Baselines.create(name, 7);
            FakeCluster cluster = new FakeCluster(4).onlyHealthy(1, 3);
            cluster.b(0).ttftByRequest.clear();
            for (int i = 0; i < 50; i++) {
                SimRequest r = FakeCluster.request(16, FakeCluster.concat(new long[] {0}, 1000 + i));
                // the reference routers' estimates favour an unhealthy backend: they must still not go there
                cluster.b(0).ttftByRequest.put(r.id(), 1.0);
                int chosen = router.route(r, cluster);
                assertTrue(chosen == 1 || chosen == 3, name + " chose unhealthy backend " + chosen);
                if (i % 3 == 0) {
                    router.onFirstToken(r, chosen, cluster.now);
                    router.onComplete(r, chosen, cluster.now);
                }
            }
        }
    }

    @Test
    void withNoHealthyBackendEveryRouterStillAnswersOne() {
        for (String name : Baselines.names()) {
            Router router = Baselines.create(name, 7);
            FakeCluster cluster = new FakeCluster(3).onlyHealthy();
            int chosen = router.route(FakeCluster.request(16, 1, 2), cluster);
            assertTrue(chosen >= 0 && chosen < 3, name + ": " + chosen);
        }
    }

    @Test
    void sameSeedSameDecisionsDifferentSeedDifferentOnes() {
        List<Integer> a = decisions(Baselines.create("random", 42));
        List<Integer> b = decisions(Baselines.create("random", 42));
        List<Integer> c = decisions(Baselines.create("random", 43));
        assertEquals(a, b);
        assertNotEquals(a, c);
    }

    private static List<Integer> decisions(Router router) {
        FakeCluster cluster = new FakeCluster(8);
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            out.add(router.route(FakeCluster.request(16, 5000 + i), cluster));
        }
        return out;
    }
}
