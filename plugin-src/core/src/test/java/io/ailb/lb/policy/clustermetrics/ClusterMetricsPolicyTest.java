package io.ailb.lb.policy.clustermetrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.policy.ResponseObserver;
import io.ailb.lb.policy.Step;
import io.ailb.lb.util.Rng;
import io.ailb.lb.util.TestConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClusterMetricsPolicyTest {
    private static final String FAST = "outbound|80||fast.dns";
    private static final String SLOW = "outbound|80||slow.dns";
    private static final String SERVICES = "\"service_list\":[\"" + FAST + "\",\"" + SLOW + "\"]";

    private final Rng random = new Rng(11);

    private static ClusterMetricsPolicy policy(String mode, String more) throws ConfigException {
        return new ClusterMetricsPolicy(
                TestConfig.view("{\"mode\":\"" + mode + "\"," + SERVICES + (more.isEmpty() ? "" : "," + more) + "}"));
    }

    private Step choose(ClusterMetricsPolicy policy, long now) {
        return policy.select(RequestContext.builder()
                .routeName("chat")
                .nowMillis(now)
                .random(random)
                .build());
    }

    /** One whole request: chosen at {@code now}, first byte after {@code ttft}, over after {@code total}. */
    private String serve(ClusterMetricsPolicy policy, long now, Map<String, long[]> latencyByService, int status) {
        Step step = choose(policy, now);
        ResponseObserver observer = step.responseObserver();
        long[] latency = latencyByService.get(step.host());
        observer.onApplied(now);
        observer.onResponseHeaders(status, now + latency[0]);
        observer.onFirstResponseBody(now + latency[0]);
        observer.onStreamEnd(now + latency[1]);
        return step.host();
    }

    private static Map<String, long[]> latencies(long fastTtft, long slowTtft) {
        return Map.of(FAST, new long[] {fastTtft, fastTtft * 10}, SLOW, new long[] {slowTtft, slowTtft * 10});
    }

    private Map<String, Integer> shares(ClusterMetricsPolicy policy, int requests, Map<String, long[]> latencies) {
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < requests; i++) {
            counts.merge(serve(policy, 10_000L * i, latencies, 200), 1, Integer::sum);
        }
        return counts;
    }

    @Test
    void leastFirstTokenLatencyMovesAwayFromASlowService() throws ConfigException {
        Map<String, Integer> counts = shares(policy("LeastFirstTokenLatency", ""), 200, latencies(50, 400));
        assertTrue(counts.getOrDefault(SLOW, 0) <= 2, "a measured slow service is avoided: " + counts);
    }

    @Test
    void leastTotalLatencyAndAdaptiveScoreDoToo() throws ConfigException {
        for (String mode : List.of("LeastTotalLatency", "AdaptiveScore")) {
            Map<String, Integer> counts = shares(policy(mode, ""), 200, latencies(50, 400));
            assertTrue(counts.getOrDefault(SLOW, 0) < 20, mode + ": " + counts);
        }
    }

    @Test
    void randomSpreadsRegardlessOfLatency() throws ConfigException {
        Map<String, Integer> counts = shares(policy("Random", ""), 400, latencies(50, 400));
        assertTrue(counts.get(SLOW) > 150 && counts.get(FAST) > 150, counts.toString());
    }

    @Test
    void leastBusyTakesTheServiceWithFewerInFlight() throws ConfigException {
        ClusterMetricsPolicy policy = policy("LeastBusy", "");
        Step first = choose(policy, 0);
        first.responseObserver().onApplied(0);
        Step second = choose(policy, 1);
        assertNotEquals(first.host(), second.host());
        second.responseObserver().onApplied(1);
        assertEquals(1, policy.stats(FAST).inflight);
        assertEquals(1, policy.stats(SLOW).inflight);
        first.responseObserver().onStreamEnd(5);
        second.responseObserver().onStreamEnd(5);
        assertEquals(0, policy.stats(FAST).inflight + policy.stats(SLOW).inflight, "given back at the end");
    }

    @Test
    void aDecisionThatNeverTookEffectCountsNothing() throws ConfigException {
        ClusterMetricsPolicy policy = policy("LeastBusy", "");
        choose(policy, 0);
        assertEquals(0, policy.stats(FAST).inflight + policy.stats(SLOW).inflight);
    }

    @Test
    void theRateLimitCapsAServicesShareOfTheLastChoices() throws ConfigException {
        Map<String, Integer> counts =
                shares(policy("LeastFirstTokenLatency", "\"rate_limit\":0.6"), 100, latencies(50, 400));
        assertEquals(60, counts.get(FAST), 2, counts.toString());
    }

    @Test
    void aFailedRequestCountsAsTwiceTheWorstMeanLatency() throws ConfigException {
        ClusterMetricsPolicy policy = policy("LeastFirstTokenLatency", "");
        Map<String, long[]> latencies = latencies(100, 100);
        while (!policy.stats(FAST).hasFirstToken() || !policy.stats(SLOW).hasFirstToken()) {
            serve(policy, 0, latencies, 200);
        }
        Step failing = choose(policy, 1_000);
        ServiceStats stats = policy.stats(failing.host());
        failing.responseObserver().onApplied(1_000);
        failing.responseObserver().onResponseHeaders(503, 1_010);
        failing.responseObserver().onFirstResponseBody(1_010);
        failing.responseObserver().onStreamEnd(1_020);
        // Means were 100 ms (first token) and 1000 ms (total): the failure adds 200 and 2000.
        assertTrue(stats.meanFirstTokenMillis() > 100, "the failure raised the mean: " + stats.meanFirstTokenMillis());
        assertEquals(1, stats.consecutiveFailures);
        assertTrue(stats.coolingDown(1_020));
    }

    @Test
    void aResetWithoutStatusOrBodyIsAFailureOnFirstTokenLatencyToo() throws ConfigException {
        ClusterMetricsPolicy policy = policy("LeastFirstTokenLatency", "");
        Step reset = choose(policy, 0);
        reset.responseObserver().onApplied(0);
        reset.responseObserver().onStreamEnd(3);
        ServiceStats stats = policy.stats(reset.host());
        assertTrue(stats.hasFirstToken(), "punished although no byte came");
        assertEquals(6, stats.meanFirstTokenMillis(), 1e-9, "twice its own 3 ms: no service has a mean yet");
        assertEquals(1.0, stats.errorRate(3, 30_000), 1e-9);
    }

    @Test
    void aClientErrorIsNoFailureOfTheService() {
        assertTrue(ClusterMetricsPolicy.failed(0));
        assertTrue(ClusterMetricsPolicy.failed(503));
        assertTrue(ClusterMetricsPolicy.failed(429));
        assertTrue(!ClusterMetricsPolicy.failed(200));
        assertTrue(!ClusterMetricsPolicy.failed(400));
        assertTrue(!ClusterMetricsPolicy.failed(404));
    }

    @Test
    void theExpectedLatencyScalesTheMeanByTheInFlightNowOverThenMeasured() {
        ServiceStats stats = new ServiceStats(100, 0.5);
        stats.recordFirstToken(100, 0);
        stats.recordFirstToken(300, 2);
        stats.inflight = 1;
        assertEquals(200, stats.expectedFirstToken(), 1e-9, "1 in flight now, as on average then: the mean");
        stats.inflight = 5;
        assertEquals(200 * 6 / 2.0, stats.expectedFirstToken(), 1e-9);
    }

    /**
     * Requests every 10 ms lasting 200 ms on the fast service and 300 ms on the slow one (about 20 in flight): the
     * plain mean of the Go plugin sends nearly everything to the service that looked fastest; scaled by the in-flight
     * count the slow service takes a real share.
     */
    @Test
    void leastFirstTokenLatencyDoesNotHerdOntoTheServiceThatLookedFastest() throws ConfigException {
        ClusterMetricsPolicy policy = policy("LeastFirstTokenLatency", "");
        java.util.ArrayDeque<Object[]> open = new java.util.ArrayDeque<>();
        Map<String, Integer> counts = new HashMap<>();
        for (long now = 0; now < 20_000; now += 10) {
            while (!open.isEmpty() && (long) open.peekFirst()[1] <= now) {
                Step done = (Step) open.removeFirst()[0];
                done.responseObserver().onResponseHeaders(200, now);
                done.responseObserver().onFirstResponseBody(now);
                done.responseObserver().onStreamEnd(now);
            }
            Step step = choose(policy, now);
            step.responseObserver().onApplied(now);
            long latency = step.host().equals(FAST) ? 200 : 300;
            open.addLast(new Object[] {step, now + latency});
            if (now >= 5_000) {
                counts.merge(step.host(), 1, Integer::sum);
            }
        }
        assertTrue(counts.getOrDefault(SLOW, 0) > 300, "the slow service takes a share: " + counts);
    }

    @Test
    void theEwmaWeighsTheOldValueByBeta() {
        ServiceStats stats = new ServiceStats(100, 0.5);
        stats.recordFirstToken(100, 0);
        stats.recordFirstToken(300, 0);
        assertEquals(200, stats.ewmaFirstTokenMillis, 1e-9);
        stats.recordTotal(800, 0);
        assertEquals(800, stats.ewmaTotalMillis, 1e-9, "the first sample is the value");
    }

    /**
     * Requests every 10 ms, each lasting 35 ms (about 4 in flight). One failure cools its service down for 5 s: it
     * gets nothing then; afterwards one request probes it, its success restarts the latency EWMAs, and the service is
     * back to a fair share.
     */
    @Test
    void aFailingServiceIsCooledDownAndComesBackAfterTheCooldown() throws ConfigException {
        ClusterMetricsPolicy policy = policy("AdaptiveScore", "\"failure_cooldown_ms\":5000");
        java.util.ArrayDeque<Object[]> open = new java.util.ArrayDeque<>();
        Map<String, Integer> during = new HashMap<>();
        Map<String, Integer> after = new HashMap<>();
        String broken = null;
        for (long now = 0; now < 20_000; now += 10) {
            while (!open.isEmpty() && (long) open.peekFirst()[1] <= now) {
                Object[] done = open.removeFirst();
                Step step = (Step) done[0];
                long end = (long) done[1];
                boolean fails = broken == null && now >= 1_000;
                step.responseObserver().onResponseHeaders(fails ? 502 : 200, end - 30);
                if (!fails) {
                    step.responseObserver().onFirstResponseBody(end - 30);
                } else {
                    broken = step.host();
                }
                step.responseObserver().onStreamEnd(end);
            }
            Step step = choose(policy, now);
            step.responseObserver().onApplied(now);
            open.addLast(new Object[] {step, now + 35});
            if (broken != null && now < 6_000) {
                during.merge(step.host(), 1, Integer::sum);
            } else if (now >= 10_000) {
                after.merge(step.host(), 1, Integer::sum);
            }
        }
        assertEquals(null, during.get(broken), "avoided while cooling down: " + during);
        assertEquals(500, after.getOrDefault(broken, 0), 100, "back to about half after the cooldown: " + after);
    }

    /**
     * One request at a time, so in-flight counts never differ: after the cooldown the failed service gets one probe,
     * whose success restarts its latency EWMAs from the probe (the punished failure no longer counts).
     */
    @Test
    void underLightTrafficOneProbeAfterTheCooldownRestartsTheLatencies() throws ConfigException {
        ClusterMetricsPolicy policy = policy("AdaptiveScore", "\"failure_cooldown_ms\":1000");
        Map<String, long[]> equal = latencies(100, 100);
        for (int i = 0; i < 10; i++) {
            serve(policy, i * 1_000L, equal, 200);
        }
        Step failing = choose(policy, 20_000);
        String broken = failing.host();
        failing.responseObserver().onApplied(20_000);
        failing.responseObserver().onStreamEnd(20_050);
        assertTrue(policy.stats(broken).ewmaTotalMillis > 1_000, "punished: " + policy.stats(broken).ewmaTotalMillis);

        assertNotEquals(broken, serve(policy, 20_500, equal, 200), "cooling down");
        assertEquals(broken, serve(policy, 21_500, equal, 200), "the probe, once the cooldown is over");
        assertEquals(100, policy.stats(broken).ewmaFirstTokenMillis, 1e-9);
        assertEquals(1_000, policy.stats(broken).ewmaTotalMillis, 1e-9);
        assertTrue(!policy.stats(broken).awaitingProbe);
    }

    @Test
    void theLocalScoreFollowsTheGoFormula() throws ConfigException {
        ClusterMetricsPolicy policy = policy("AdaptiveScore", "");
        ServiceStats stats = policy.stats(FAST);
        assertEquals(1.0, policy.latencyAndErrorScore(stats, 0), 1e-9, "no latency yet: the in-flight term decides");
        stats.recordFirstToken(99, 0);
        stats.recordTotal(399, 0);
        stats.recordOutcome(true, 0, 1);
        stats.recordOutcome(false, 0, 1);
        double errorRate = stats.errorRate(0, 30_000);
        assertEquals((0.7 * 10 + 0.3 * 20) * (1 + 3 * errorRate), policy.latencyAndErrorScore(stats, 0), 1e-9);
    }

    @Test
    void zeroMeansTheGoDefaultsAndBadValuesAreRefused() throws ConfigException {
        policy("AdaptiveScore", "\"queue_size\":0,\"p2c_choices\":0,\"failure_cooldown_ms\":0");
        assertEquals(
                "lb_config.ttft_weight=0: and total_latency_weight are both 0; at least one latency must count",
                assertThrows(
                                ConfigException.class,
                                () -> policy("AdaptiveScore", "\"ttft_weight\":0,\"total_latency_weight\":0"))
                        .getMessage());
        assertEquals(
                "lb_config.ewma_beta=1.2: must be a number in [0, 1]",
                assertThrows(ConfigException.class, () -> policy("AdaptiveScore", "\"ewma_beta\":1.2"))
                        .getMessage());
        assertEquals(
                "lb_config.serviceFQDN: is required",
                assertThrows(ConfigException.class, () -> policy("AdaptiveScore", "\"global_inflight_enabled\":true"))
                        .getMessage());
        assertEquals(
                "lb_config.mode=Fastest: must be one of LeastBusy, LeastFirstTokenLatency, LeastTotalLatency, "
                        + "AdaptiveScore, Random",
                assertThrows(ConfigException.class, () -> policy("Fastest", "")).getMessage());
        assertEquals(
                "lb_config.service_list: is required and must not be empty",
                assertThrows(
                                ConfigException.class,
                                () -> new ClusterMetricsPolicy(TestConfig.view("{\"mode\":\"LeastBusy\"}")))
                        .getMessage());
    }

    @Test
    void globalInFlightAsksRedisWithEachCandidatesScore() throws ConfigException {
        ClusterMetricsPolicy policy = policy(
                "AdaptiveScore",
                "\"global_inflight_enabled\":true,\"serviceFQDN\":\"redis.static\",\"servicePort\":6379");
        Step step = choose(policy, 0);
        assertEquals(Step.Kind.REDIS, step.kind());
        assertEquals(1, step.releases().size());
        assertEquals(Step.Kind.CLUSTER, step.onRedisFailure().kind(), "a Redis failure keeps the local choice");
        List<String> keys = step.redisCommand().keys();
        assertEquals("higress:adaptive_score_inflight:{chat}:inflight", keys.get(0));
        List<String> args = step.redisCommand().args();
        assertEquals(4 + 3 * 2, args.size(), args.toString());
        assertEquals(FAST, args.get(4));
        assertEquals("1.0", args.get(5), "no latency yet");
        assertEquals("0", args.get(6), "not cooling down");
        assertEquals(1, policy.redisTargets().size());
    }

    @Test
    void globalInFlightIsOffForOtherModes() throws ConfigException {
        ClusterMetricsPolicy policy = policy(
                "LeastBusy", "\"global_inflight_enabled\":true,\"serviceFQDN\":\"redis.static\",\"servicePort\":6379");
        assertEquals(Step.Kind.CLUSTER, choose(policy, 0).kind());
        assertTrue(policy.redisTargets().isEmpty());
    }
}
