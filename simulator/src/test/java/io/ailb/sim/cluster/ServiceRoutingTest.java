package io.ailb.sim.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.sim.backend.BackendConfig;
import io.ailb.sim.engine.Simulation;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.report.RunResult;
import io.ailb.sim.router.Routers;
import io.ailb.sim.workload.ChatWorkload;
import io.ailb.sim.workload.Workload;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * lb_type cluster through the real .wasm: two services of two backends, the second five times slower, under a
 * closed-loop chat (10 conversations at a time), so a router that reads the services' load sends the slow one less.
 */
@Timeout(600)
class ServiceRoutingTest {
    private static final long SEED = 11;
    private static final ServiceLayout FAST_AND_SLOW = ServiceLayout.of(List.of(2, 2), List.of(1.0, 0.2));
    private static Routers.PluginEnvironment env;
    private static Workload chat;
    private static Simulation.Settings settings;

    @BeforeAll
    static void start() {
        env = new Routers.PluginEnvironment(Routers.defaultWasm(), 1, 0, 10_000);
        ChatWorkload.Spec spec = ChatWorkload.HIGRESS_ARTICLE.withSessions(30);
        chat = ChatWorkload.generate(
                new ChatWorkload.Spec(
                        spec.groups(),
                        spec.sessions(),
                        4,
                        spec.systemTokens(),
                        spec.inputMean(),
                        spec.inputStddev(),
                        200,
                        spec.outputStddev(),
                        10,
                        0,
                        0,
                        spec.decodeMsPerToken(),
                        spec.blockTokens(),
                        0),
                SEED);
        settings = Simulation.Settings.of(FAST_AND_SLOW.totalBackends(), BackendConfig.DEFAULT, SEED)
                .withPerBackend(FAST_AND_SLOW.backendConfigs(BackendConfig.DEFAULT));
    }

    @AfterAll
    static void stop() {
        if (env != null) {
            env.close();
        }
    }

    private static RunResult run(String router) {
        return Simulation.run(
                chat,
                Routers.resolveForServices(router, SEED, env, FAST_AND_SLOW).get(),
                settings);
    }

    private static double slowShare(RunResult r) {
        return ServiceSweepTable.shares(r, FAST_AND_SLOW)[1];
    }

    @Test
    void loadAwareModesSendTheSlowServiceClearlyLessThanRandom() {
        RunResult random = run("plugin:Random");
        RunResult leastBusy = run("plugin:LeastBusy");
        RunResult adaptive = run("plugin:AdaptiveScore");

        for (RunResult r : List.of(random, leastBusy, adaptive)) {
            assertEquals(120, r.completed(), r.router());
            assertEquals(120, r.plugin().overrides(), r.router() + " wrote the header for every request");
            assertEquals(0, r.plugin().fallbacks() + r.plugin().vmTraps(), r.router() + ": " + r.plugin());
        }
        assertTrue(slowShare(random) > 0.35, "random splits about evenly: " + slowShare(random));
        assertTrue(
                slowShare(leastBusy) < slowShare(random) - 0.15,
                "LeastBusy " + slowShare(leastBusy) + " vs random " + slowShare(random));
        assertTrue(
                slowShare(adaptive) < slowShare(random) - 0.15,
                "AdaptiveScore " + slowShare(adaptive) + " vs random " + slowShare(random));
        assertTrue(leastBusy.ttft().mean() < random.ttft().mean(), "less of the slow service, lower TTFT");
        assertTrue(leastBusy.e2e().mean() < random.e2e().mean());
    }

    @Test
    void theGlobalInFlightCountGoesThroughRedis() {
        RunResult global = run("plugin:" + ClusterConfigs.ADAPTIVE_GLOBAL);
        assertEquals(120, global.completed());
        assertTrue(global.plugin().redisRoundTrips() >= 120, global.plugin().toString());
        assertTrue(slowShare(global) < 0.35, "AdaptiveScore with the shared count: " + slowShare(global));
    }

    @Test
    void clusterHashKeepsEverySessionOnOneService() {
        RunResult hashed = run("plugin:cluster_hash");
        assertEquals(120, hashed.completed());
        Map<Long, String> sessionOf = new HashMap<>();
        for (SimRequest r : chat.requests()) {
            sessionOf.put(r.id(), r.sessionId());
        }
        Map<String, Set<Integer>> servicesOfSession = new HashMap<>();
        Set<Integer> used = new HashSet<>();
        for (RunResult.RequestRecord record : hashed.records()) {
            int service = FAST_AND_SLOW.serviceOf(record.backend());
            servicesOfSession
                    .computeIfAbsent(sessionOf.get(record.id()), s -> new HashSet<>())
                    .add(service);
            used.add(service);
        }
        assertEquals(30, servicesOfSession.size());
        servicesOfSession.forEach((session, services) -> assertEquals(1, services.size(), session));
        assertEquals(Set.of(0, 1), used, "both services got sessions");
    }

    @Test
    void theStaticSplitByCapacityGivesEachServiceItsShare() {
        RunResult weighted = Simulation.run(chat, ServiceBaselines.create("weighted", FAST_AND_SLOW, SEED), settings);
        assertEquals(0.2 / 1.2, slowShare(weighted), 1.0 / 120);
    }
}
