package io.ailb.lb.policy.clustermetrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.policy.SharedDataStore;
import io.ailb.lb.policy.Step;
import io.ailb.lb.util.Rng;
import io.ailb.lb.util.TestConfig;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Two VMs of one gateway pooling cluster_metrics' measurements through shared data. */
class SharedStatsTest {
    private static final String FAST = "outbound|80||fast.dns";
    private static final String SLOW = "outbound|80||slow.dns";
    private static final String CONFIG =
            "{\"mode\":\"LeastFirstTokenLatency\",\"service_list\":[\"" + FAST + "\",\"" + SLOW + "\"]}";

    private final Rng random = new Rng(5);

    private ClusterMetricsPolicy policy() throws ConfigException {
        return new ClusterMetricsPolicy(TestConfig.view(CONFIG));
    }

    private String serve(ClusterMetricsPolicy policy, long now) {
        Step step = policy.select(
                RequestContext.builder().nowMillis(now).random(random).build());
        step.responseObserver().onApplied(now);
        step.responseObserver().onResponseHeaders(200, now);
        long ttft = step.host().equals(FAST) ? 40 : 400;
        step.responseObserver().onFirstResponseBody(now + ttft);
        step.responseObserver().onStreamEnd(now + ttft + 100);
        return step.host();
    }

    @Test
    void aVmThatNeverMeasuredAServiceAvoidsTheSlowOneItsPeerMeasured() throws ConfigException {
        SharedDataStore store = new SharedDataStore();
        ClusterMetricsPolicy measured = policy();
        ClusterMetricsPolicy fresh = policy();
        for (int i = 0; i < 20; i++) {
            serve(measured, i * 1_000L);
        }
        measured.shareState(store.vm("a"), 30_000);
        fresh.shareState(store.vm("b"), 30_000);

        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < 20; i++) {
            counts.merge(serve(fresh, 31_000 + i), 1, Integer::sum);
        }
        assertEquals(Map.of(FAST, 20), counts, "the peer's measurements decide from the first request");
    }

    @Test
    void inFlightCountsAddUpAcrossVms() throws ConfigException {
        SharedDataStore store = new SharedDataStore();
        ClusterMetricsPolicy busy = policy();
        ClusterMetricsPolicy other = policy();
        for (int i = 0; i < 3; i++) {
            Step step = busy.select(
                    RequestContext.builder().nowMillis(0).random(random).build());
            step.responseObserver().onApplied(0);
        }
        busy.shareState(store.vm("a"), 1_000);
        other.shareState(store.vm("b"), 1_000);
        assertEquals(3, other.stats(FAST).pooledInflight() + other.stats(SLOW).pooledInflight());
        assertEquals(0, other.stats(FAST).inflight + other.stats(SLOW).inflight, "its own counts are its own");
    }

    @Test
    void aVmThatStoppedWritingIsForgottenAndEachVmKeepsOneLine() throws ConfigException {
        SharedDataStore store = new SharedDataStore();
        ClusterMetricsPolicy gone = policy();
        ClusterMetricsPolicy alive = policy();
        serve(gone, 0);
        gone.shareState(store.vm("a"), 1_000);
        alive.shareState(store.vm("b"), 1_000);
        alive.shareState(store.vm("b"), 2_000);
        String key = store.values.keySet().iterator().next();
        assertEquals(2, store.text(key).split("\n").length, store.text(key));
        assertTrue(alive.stats(FAST).peerOutcomes + alive.stats(SLOW).peerOutcomes > 0);

        alive.shareState(store.vm("b"), 1_000 + SharedStats.STALE_MILLIS + 1);
        assertEquals(1, store.text(key).split("\n").length, "the stale line is dropped: " + store.text(key));
        assertEquals(0, alive.stats(FAST).peerOutcomes + alive.stats(SLOW).peerOutcomes, 1e-9);
    }

    @Test
    void aWriteThatLosesTheRaceIsRetriedOnTheNewValue() throws ConfigException {
        SharedDataStore store = new SharedDataStore();
        ClusterMetricsPolicy first = policy();
        first.shareState(store.vm("a"), 1_000);
        store.conflicts = 2;
        policy().shareState(store.vm("b"), 1_000);
        String key = store.values.keySet().iterator().next();
        assertTrue(store.text(key).startsWith("b "), "written at the third attempt: " + store.text(key));
    }

    @Test
    void garbageInTheKeyIsIgnored() throws ConfigException {
        SharedDataStore store = new SharedDataStore();
        ClusterMetricsPolicy policy = policy();
        policy.shareState(store.vm("a"), 1_000);
        String realKey = store.values.keySet().iterator().next();
        store.put(
                realKey,
                "x 1000 1 2 3\nz notanumber\ny 1000 a b c d e f g h i j k l m n o p".getBytes(StandardCharsets.UTF_8));
        policy.shareState(store.vm("a"), 1_500);
        assertEquals(0, policy.stats(FAST).peerInflight);
        assertEquals(1, store.text(realKey).split("\n").length, store.text(realKey));
    }
}
