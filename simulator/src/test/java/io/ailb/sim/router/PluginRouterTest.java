package io.ailb.sim.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.sim.backend.BackendConfig;
import io.ailb.sim.engine.Simulation;
import io.ailb.sim.report.RunResult;
import io.ailb.sim.workload.Workload;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The real .wasm as a router, against a real Redis; small runs (a fresh VM every few requests, see README). */
@Timeout(600)
class PluginRouterTest {
    private static Routers.PluginEnvironment env;

    @BeforeAll
    static void start() {
        env = new Routers.PluginEnvironment(Routers.defaultWasm(), 2, 15, 10_000);
    }

    @AfterAll
    static void stop() {
        if (env != null) {
            env.close();
        }
    }

    @Test
    void prefixCacheThroughTheWasmBeatsRoundRobinOnAPartitionableWorkload() {
        Workload w = io.ailb.sim.engine.PartitionableWorkloadAccess.create(90, 1);
        Simulation.Settings settings = Simulation.Settings.of(3,
                BackendConfig.DEFAULT.withCapacityTokens(io.ailb.sim.engine.PartitionableWorkloadAccess.CAPACITY), 7);
        List<RunResult> results = Simulation.runAll(w, List.of(Routers.resolve("plugin:prefix_cache", 7, env),
                Routers.resolve("round_robin", 7, env)), settings, null);
        RunResult plugin = results.get(0);
        RunResult roundRobin = results.get(1);

        assertEquals("plugin:prefix_cache", plugin.router());
        assertEquals(90, plugin.completed());
        RunResult.PluginStats stats = plugin.plugin();
        assertEquals(90, stats.requests());
        assertEquals(2, plugin.gateways());
        assertTrue(stats.overrides() >= 80, "the plugin decided (almost) every request: " + stats);
        assertTrue(stats.redisRoundTripsPerRequest() >= 1.0, stats.toString());
        assertTrue(stats.decisionMicros().mean() > 0);
        assertTrue(plugin.hitRate() >= 2 * roundRobin.hitRate(),
                "prefix_cache " + plugin.hitRate() + " vs round robin " + roundRobin.hitRate());
    }

    @Test
    void leastBusyReadsTheBackendsMetricsFromTheHostInfo() {
        Workload w = io.ailb.sim.engine.PartitionableWorkloadAccess.create(30, 3);
        RunResult r = Simulation.run(w, Routers.resolve("plugin:least_busy", 3, env).get(),
                Simulation.Settings.of(3, BackendConfig.DEFAULT, 3));
        assertEquals(30, r.completed());
        assertTrue(r.plugin().overrides() >= 25, r.plugin().toString());
        assertEquals(0, r.plugin().redisRoundTrips(), "metrics policies need no Redis");
        for (long n : r.requestsPerBackend()) {
            assertTrue(n > 0, "every backend got work");
        }
    }
}
