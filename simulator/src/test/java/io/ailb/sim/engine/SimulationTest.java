package io.ailb.sim.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.sim.backend.BackendConfig;
import io.ailb.sim.model.BackendView;
import io.ailb.sim.model.ClusterView;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.report.RunResult;
import io.ailb.sim.router.Router;
import io.ailb.sim.router.Routers;
import io.ailb.sim.workload.ChatWorkload;
import io.ailb.sim.workload.Workload;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class SimulationTest {
    private static final Simulation.Settings THREE = Simulation.Settings.of(
            3, BackendConfig.DEFAULT.withCapacityTokens(PartitionableWorkload.CAPACITY_TOKENS), 7);

    /** Sends each group to one backend: group g (from its first block id) → g mod N. */
    static final class GroupAffinity implements Router {
        @Override
        public String name() {
            return "group_affinity";
        }

        @Override
        public int route(SimRequest request, ClusterView cluster) {
            long group = request.blockIds().get(0) / 1000 - 1;
            return (int) (group % cluster.backends().size());
        }
    }

    private static Supplier<Router> baseline(String name) {
        return Routers.resolve(name, 7, null);
    }

    @Test
    void theSameSeedGivesTheSameResult() {
        Workload chat = ChatWorkload.generate(ChatWorkload.HIGRESS_ARTICLE.withSessions(12), 3);
        Simulation.Settings settings = Simulation.Settings.of(3, BackendConfig.DEFAULT.withCapacityTokens(20_000), 3);
        RunResult a = Simulation.run(chat, baseline("random").get(), settings);
        RunResult b = Simulation.run(
                ChatWorkload.generate(ChatWorkload.HIGRESS_ARTICLE.withSessions(12), 3),
                baseline("random").get(),
                settings);

        assertEquals(60, a.completed());
        assertEquals(a.records(), b.records());
        assertEquals(a.toMap(), b.toMap());
    }

    @Test
    void everyRouterSeesTheSameArrivalsAndFreshBackends() {
        Workload w = PartitionableWorkload.create(60, 1);
        List<RunResult> results =
                Simulation.runAll(w, List.of(baseline("round_robin"), baseline("round_robin")), THREE, null);
        assertEquals(results.get(0).toMap(), results.get(1).toMap(), "no state leaks from one run into the next");
        assertEquals(60, results.get(0).requests());
        assertEquals(w.totalInputTokens(), results.get(0).inputTokens());
    }

    @Test
    void anAffinityRouterBeatsRoundRobinsHitRateOnAPartitionableWorkload() {
        Workload w = PartitionableWorkload.create(90, 1);
        RunResult affinity = Simulation.run(w, new GroupAffinity(), THREE);
        RunResult roundRobin = Simulation.run(w, baseline("round_robin").get(), THREE);

        // at most (90 - 9) × 4/5 / 90 = 72% (one miss per group, every later request finds its 4 prefix blocks);
        // less because unique blocks can push a prefix out of an LRU cache sized for three groups
        assertTrue(affinity.hitRate() > 0.6 && affinity.hitRate() <= 0.72, "affinity " + affinity.hitRate());
        System.out.printf("partitionable: affinity %.3f, round robin %.3f%n", affinity.hitRate(), roundRobin.hitRate());
        assertTrue(
                affinity.hitRate() >= 2 * roundRobin.hitRate(),
                "affinity " + affinity.hitRate() + " vs round robin " + roundRobin.hitRate());
        assertTrue(affinity.ttft().mean() < roundRobin.ttft().mean());
    }

    @Test
    void closedLoopKeepsTheConcurrencyAndSendsTurnsInOrder() {
        Workload chat = ChatWorkload.generate(ChatWorkload.HIGRESS_ARTICLE.withSessions(6), 1);
        int[] maxInFlight = {0};
        Router watching = new Router() {
            @Override
            public String name() {
                return "watching";
            }

            @Override
            public int route(SimRequest request, ClusterView cluster) {
                int inFlight = 1;
                for (BackendView b : cluster.backends()) {
                    inFlight += b.inFlight();
                }
                maxInFlight[0] = Math.max(maxInFlight[0], inFlight);
                return (int) (request.id() % 3);
            }
        };
        RunResult r = Simulation.run(chat, watching, Simulation.Settings.of(3, BackendConfig.DEFAULT, 1));

        assertEquals(30, r.completed());
        assertEquals(6, maxInFlight[0], "at most six sessions at a time, each one turn at a time");
        for (RunResult.RequestRecord rec : r.records()) {
            assertTrue(rec.ttftMs() > 0 && rec.e2eMs() >= rec.ttftMs());
        }
    }

    @Test
    void anUnhealthyBackendIsAvoidedByTheBaselines() {
        Workload w = PartitionableWorkload.create(40, 2);
        Simulation.Settings settings = THREE.withHealthChanges(List.of(new Simulation.HealthChange(0, 1, false)));
        RunResult r = Simulation.run(w, baseline("round_robin").get(), settings);
        assertEquals(0, r.requestsPerBackend()[1]);
        assertEquals(0, r.routedToUnhealthy());
    }

    private static SimRequest turn(long id, long arrivalMs, String session, List<Long> blocks, int outputTokens) {
        return new SimRequest(id, arrivalMs, session, 16 * blocks.size(), outputTokens, 16, blocks, "");
    }

    @Test
    void answeredPacingSendsATurnOnlyOnceTheRequestItContinuesHasCompleted() {
        List<SimRequest> requests = List.of(
                turn(0, 0, "a", List.of(1L, 2L), 400),
                turn(1, 100, "a", List.of(1L, 2L, 3L), 10),
                turn(2, 100, "b", List.of(7L, 8L), 10));
        Workload fixed = Workload.openLoop("turns", requests, null);
        RunResult atTheirTimes = Simulation.run(fixed, baseline("round_robin").get(), THREE);
        RunResult answered = Simulation.run(
                fixed.withAnsweredTurns(true), baseline("round_robin").get(), THREE);

        assertEquals(100, arrival(atTheirTimes, 1), 1e-9, "fixed pacing: sent at its time, mid-answer");
        RunResult.RequestRecord first = record(answered, 0);
        assertTrue(first.e2eMs() > 100, "the first answer takes longer than the gap: " + first.e2eMs());
        assertEquals(first.arrivalMs() + first.e2eMs(), arrival(answered, 1), 1e-9, "sent when its answer is in");
        assertEquals(100, arrival(answered, 2), 1e-9, "another session's request keeps its time");
    }

    @Test
    void withoutSessionsARequestContinuesTheLatestOneSharingMoreThanItsFirstBlock() {
        Workload trace = Workload.openLoop(
                "trace",
                List.of(
                        turn(0, 0, null, List.of(1L, 2L, 3L), 1),
                        turn(1, 0, null, List.of(1L, 5L), 1),
                        turn(2, 0, null, List.of(1L, 2L, 3L, 4L), 1),
                        turn(3, 0, null, List.of(1L, 2L, 9L), 1),
                        turn(4, 0, "s", List.of(1L, 2L, 3L, 4L, 6L), 1)),
                null);
        assertEquals(
                Map.of(2L, 0L, 3L, 2L),
                trace.previousTurns(),
                "request 1 shares only the first block; 3 shares two with 0 and 2, 2 the latest; 4 has a session");
    }

    private static RunResult.RequestRecord record(RunResult result, long id) {
        return result.records().stream().filter(r -> r.id() == id).findFirst().orElseThrow();
    }

    private static double arrival(RunResult result, long id) {
        return record(result, id).arrivalMs();
    }
}
