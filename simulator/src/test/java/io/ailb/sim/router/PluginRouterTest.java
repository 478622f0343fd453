package io.ailb.sim.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.lb.policy.PolicyRegistry;
import io.ailb.sim.backend.BackendConfig;
import io.ailb.sim.cluster.ServiceLayout;
import io.ailb.sim.engine.Simulation;
import io.ailb.sim.model.ClusterView;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.report.RunResult;
import io.ailb.sim.workload.Workload;
import java.util.ArrayList;
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
        Simulation.Settings settings = Simulation.Settings.of(
                3,
                BackendConfig.DEFAULT.withCapacityTokens(io.ailb.sim.engine.PartitionableWorkloadAccess.CAPACITY),
                7);
        List<RunResult> results = Simulation.runAll(
                w,
                List.of(Routers.resolve("plugin:prefix_cache", 7, env), Routers.resolve("round_robin", 7, env)),
                settings,
                null);
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
        assertTrue(
                plugin.hitRate() >= 2 * roundRobin.hitRate(),
                "prefix_cache " + plugin.hitRate() + " vs round robin " + roundRobin.hitRate());
    }

    /**
     * The router table comes from the core's registry: a policy registered there runs here with no simulator edit
     * (lb_type cluster ones choose among services: one service per backend here).
     */
    @Test
    void everyRegisteredPolicyRunsThroughTheWasmFromItsNameAlone() {
        ServiceLayout oneBackendEach = ServiceLayout.of(List.of(1, 1, 1), List.of(1.0, 1.0, 1.0));
        for (String policy : PolicyRegistry.names()) {
            Workload w = io.ailb.sim.engine.PartitionableWorkloadAccess.create(20, 5);
            boolean cluster = PolicyRegistry.lbType(policy).equals("cluster");
            RunResult r = Simulation.run(
                    w,
                    cluster
                            ? Routers.resolveForServices("plugin:" + policy, 5, env, oneBackendEach)
                                    .get()
                            : Routers.resolve("plugin:" + policy, 5, env).get(),
                    Simulation.Settings.of(3, BackendConfig.DEFAULT, 5));
            RunResult.PluginStats stats = r.plugin();
            assertEquals(20, r.completed(), policy);
            assertEquals(0, stats.vmTraps(), policy + ": " + stats);
            assertTrue(stats.overrides() >= 18, policy + " decided (almost) every request: " + stats);
            boolean redis = !cluster && PluginRouter.usesRedis(policy); // the cluster defaults keep counts local
            assertEquals(redis, stats.redisRoundTrips() > 0, policy + ": " + stats);
        }
    }

    @Test
    void anUnregisteredPolicyIsRefusedWhenTheRouterIsResolved() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> Routers.resolve("plugin:round_robin", 1, env));
        assertTrue(
                e.getMessage()
                        .startsWith("plugin:round_robin cannot run in the simulator: lb_policy: unknown"
                                + " policy \"round_robin\""),
                e.getMessage());
    }

    @Test
    void onlyPoliciesThatReportARedisGetTheSimulatorsRedis() {
        assertEquals(
                "{\"lb_policy\":\"cache_aware\",\"lb_config\":{\"serviceFQDN\":\"redis.static\","
                        + "\"servicePort\":6379}}",
                PluginRouter.configFor("cache_aware"));
        assertEquals("{\"lb_policy\":\"least_busy\",\"lb_config\":{}}", PluginRouter.configFor("least_busy"));
    }

    /**
     * Two worker VMs of one gateway (--vms-per-gateway 2): their local cache_aware indexes pool what each routed
     * through the gateway's shared data, so the prefixes each VM learnt are found by the other, which two separate
     * gateways cannot do.
     */
    @Test
    void theVmsOfOneGatewayPoolTheirLocalIndexes() {
        String local = "plugin:{\"lb_policy\":\"cache_aware\",\"lb_config\":{\"index\":\"local\"}}";
        Workload w = io.ailb.sim.engine.PartitionableWorkloadAccess.create(90, 1);
        Simulation.Settings settings = Simulation.Settings.of(
                3,
                BackendConfig.DEFAULT.withCapacityTokens(io.ailb.sim.engine.PartitionableWorkloadAccess.CAPACITY),
                7);
        RunResult pooled;
        try (Routers.PluginEnvironment twoVms = new Routers.PluginEnvironment(Routers.defaultWasm(), 1, 2, 0, 10_000)) {
            pooled = Simulation.run(w, Routers.resolve(local, 7, twoVms).get(), settings);
        }
        RunResult apart;
        try (Routers.PluginEnvironment twoGateways =
                new Routers.PluginEnvironment(Routers.defaultWasm(), 2, 0, 10_000)) {
            apart = Simulation.run(w, Routers.resolve(local, 7, twoGateways).get(), settings);
        }
        assertEquals(90, pooled.completed());
        assertEquals(1, pooled.gateways());
        assertTrue(
                pooled.hitRate() > apart.hitRate(),
                "one gateway's two VMs " + pooled.hitRate() + " vs two gateways " + apart.hitRate());
    }

    /**
     * A first token reaches the plugin at its own time, as a real gateway's clock reads it, not at the last request's
     * arrival: the plugin times first tokens (its fit of first-token times, its prefill rate) from its clock.
     */
    @Test
    void thePluginSeesEachFirstTokenAtItsOwnTime() {
        PluginRouter plugin =
                (PluginRouter) Routers.resolve("plugin:cache_aware", 3, env).get();
        List<long[]> firstTokens = new ArrayList<>();
        Router recording = new Router() {
            @Override
            public String name() {
                return plugin.name();
            }

            @Override
            public int route(SimRequest request, ClusterView cluster) {
                return plugin.route(request, cluster);
            }

            @Override
            public void onFirstToken(SimRequest request, int backend, long nowMs) {
                plugin.onFirstToken(request, backend, nowMs);
                firstTokens.add(new long[] {nowMs, plugin.gatewayClockMillis(request.id())});
            }

            @Override
            public void onComplete(SimRequest request, int backend, long nowMs) {
                plugin.onComplete(request, backend, nowMs);
            }
        };
        RunResult r = Simulation.run(
                io.ailb.sim.engine.PartitionableWorkloadAccess.create(30, 3),
                recording,
                Simulation.Settings.of(3, BackendConfig.DEFAULT, 3));
        assertEquals(30, r.completed());
        assertEquals(30, firstTokens.size());
        for (long[] atAndSeen : firstTokens) {
            assertEquals(atAndSeen[0], atAndSeen[1], "the gateway's clock at a first token");
        }
    }

    /**
     * Each request's record carries what cache_aware counted as cached on its target (its decision's matched_tokens,
     * read from the access-log property): nothing for a group's first request, its prefix for the ones after. A router
     * that does not say leaves it at -1.
     */
    @Test
    void eachRecordCarriesTheTokensTheDecisionCountedAsCached() {
        Simulation.Settings settings = Simulation.Settings.of(3, BackendConfig.DEFAULT, 5);
        RunResult cacheAware = Simulation.run(
                io.ailb.sim.engine.PartitionableWorkloadAccess.create(30, 3),
                Routers.resolve("plugin:cache_aware", 5, env).get(),
                settings);
        assertEquals(30, cacheAware.completed());
        long counting =
                cacheAware.records().stream().filter(r -> r.countedCached() > 0).count();
        assertTrue(counting >= 20, counting + " of 30 counted a cached prefix");
        for (RunResult.RequestRecord r : cacheAware.records()) {
            assertTrue(r.countedCached() >= 0 && r.countedCached() <= r.inputTokens() + 512, r.toString());
        }
        RunResult roundRobin = Simulation.run(
                io.ailb.sim.engine.PartitionableWorkloadAccess.create(30, 3),
                Routers.resolve("round_robin", 5, env).get(),
                settings);
        assertTrue(roundRobin.records().stream().allMatch(r -> r.countedCached() == -1));
    }

    @Test
    void leastBusyReadsTheBackendsMetricsFromTheHostInfo() {
        Workload w = io.ailb.sim.engine.PartitionableWorkloadAccess.create(30, 3);
        RunResult r = Simulation.run(
                w,
                Routers.resolve("plugin:least_busy", 3, env).get(),
                Simulation.Settings.of(3, BackendConfig.DEFAULT, 3));
        assertEquals(30, r.completed());
        assertTrue(r.plugin().overrides() >= 25, r.plugin().toString());
        assertEquals(0, r.plugin().redisRoundTrips(), "metrics policies need no Redis");
        for (long n : r.requestsPerBackend()) {
            assertTrue(n > 0, "every backend got work");
        }
    }
}
