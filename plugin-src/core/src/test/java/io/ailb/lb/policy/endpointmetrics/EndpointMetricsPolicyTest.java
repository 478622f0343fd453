package io.ailb.lb.policy.endpointmetrics;

import static io.ailb.lb.policy.Fixtures.CLUSTER;
import static io.ailb.lb.policy.Fixtures.chat;
import static io.ailb.lb.policy.Fixtures.ctx;
import static io.ailb.lb.policy.Fixtures.down;
import static io.ailb.lb.policy.Fixtures.up;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.metrics.Samples;
import io.ailb.lb.model.Endpoint;
import io.ailb.lb.policy.FallbackReason;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.policy.ScrapeRequest;
import io.ailb.lb.policy.Step;
import io.ailb.lb.util.Rng;
import io.ailb.lb.util.TestConfig;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EndpointMetricsPolicyTest {
    private static EndpointMetricsPolicy policy(String json) throws ConfigException {
        return new EndpointMetricsPolicy("endpoint_metrics", TestConfig.view(json));
    }

    /** The set of hosts chosen over many requests with different random draws. */
    private static Set<String> chosen(EndpointMetricsPolicy policy, String model, Endpoint... endpoints) {
        Set<String> hosts = new HashSet<>();
        for (int seed = 0; seed < 50; seed++) {
            RequestContext.Builder ctx = ctx(endpoints).random(new Rng(seed));
            if (model != null) {
                ctx.request(chat("{\"model\":\"" + model + "\",\"messages\":[]}"));
            }
            Step step = policy.select(ctx.build());
            assertEquals(Step.Kind.ROUTE, step.kind(), step.toString());
            hosts.add(step.host());
        }
        return hosts;
    }

    private static Set<String> set(String... hosts) {
        return new HashSet<>(Arrays.asList(hosts));
    }

    private static String lora(String adapters, int max) {
        return "vllm:lora_requests_info{max_lora=\"" + max + "\",running_lora_adapters=\"" + adapters + "\"} 1\n";
    }

    @Test
    void theDefaultPolicyPrefersTheShortestQueue() throws ConfigException {
        assertEquals(
                set("b"),
                chosen(
                        policy("{}"),
                        null,
                        up("a", Samples.vllm(30, 0.1)),
                        up("b", Samples.vllm(0, 0.1)),
                        up("c", Samples.vllm(40, 0.1))));
    }

    @Test
    void amongEqualQueuesTheLeastKvCacheUsageWins() throws ConfigException {
        assertEquals(
                set("b"),
                chosen(
                        policy("{}"),
                        null,
                        up("a", Samples.vllm(2, 0.9)),
                        up("b", Samples.vllm(2, 0.1)),
                        up("c", Samples.vllm(2, 0.8))));
    }

    @Test
    void hostsWithinTheLeastBandAreChosenAtRandom() throws ConfigException {
        assertEquals(
                set("a", "b"),
                chosen(
                        policy("{}"),
                        null,
                        up("a", Samples.vllm(0, 0.1)),
                        up("b", Samples.vllm(0, 0.1)),
                        up("c", Samples.vllm(0, 0.9))));
    }

    @Test
    void aHostRunningTheRequestedAdapterWins() throws ConfigException {
        assertEquals(
                set("b"),
                chosen(
                        policy("{}"),
                        "sql-lora",
                        up("a", Samples.vllm(0, 0.1) + lora("chat-lora", 4)),
                        up("b", Samples.vllm(3, 0.5) + lora("sql-lora", 4))));
    }

    @Test
    void withoutAffinityAHostWithAFreeAdapterSlotIsPreferred() throws ConfigException {
        assertEquals(
                set("b"),
                chosen(
                        policy("{}"),
                        "new-lora",
                        up("a", Samples.vllm(0, 0.1) + lora("x,y", 2)),
                        up("b", Samples.vllm(3, 0.5) + lora("z", 2))));
    }

    @Test
    void whenEveryQueueIsLongTheShortestQueueStillWins() throws ConfigException {
        assertEquals(
                set("b"), chosen(policy("{}"), null, up("a", Samples.vllm(200, 0.1)), up("b", Samples.vllm(60, 0.9))));
    }

    @Test
    void missingLoraMetricsDegradeInsteadOfFailing() throws ConfigException {
        assertEquals(
                set("a"), chosen(policy("{}"), "sql-lora", up("a", Samples.VLLM_V0), up("b", Samples.vllm(9, 0.1))));
    }

    @Test
    void aHostWithoutAnyKvFigureStillCompetesOnQueueWhenNoHostReportsKv() throws ConfigException {
        assertEquals(
                set("a"),
                chosen(
                        policy("{}"),
                        null,
                        up("a", "vllm:num_requests_waiting 0\n"),
                        up("b", "vllm:num_requests_waiting 9\n")));
    }

    @Test
    void sglangAndVllmHostsAreComparedOnTheSameFigures() throws ConfigException {
        assertEquals(set("v"), chosen(policy("{}"), null, up("s", Samples.SGLANG), up("v", Samples.vllm(1, 0.2))));
    }

    @Test
    void noHostWithMetricsFallsBack() throws ConfigException {
        Step step = policy("{}").select(ctx(up("a"), up("b")).build());
        assertEquals(FallbackReason.NO_METRICS, step.reason());
    }

    @Test
    void noHealthyHostFallsBack() throws ConfigException {
        Step step = policy("{}").select(ctx(down("a")).build());
        assertEquals(FallbackReason.NO_HEALTHY_HOST, step.reason());
    }

    @Test
    void unhealthyHostsAreNeverChosen() throws ConfigException {
        assertEquals(
                set("b"),
                chosen(
                        policy("{}"),
                        null,
                        new Endpoint("a", false, Samples.vllm(0, 0)),
                        up("b", Samples.vllm(9, 0.9))));
    }

    @Test
    void leastChoosesTheLowestTargetMetric() throws ConfigException {
        EndpointMetricsPolicy policy = policy("{\"metric_policy\":\"least\",\"target_metric\":\"load\"}");
        assertEquals(set("b"), chosen(policy, null, up("a", "load 9\n"), up("b", "load 1\n"), up("c", "load 8\n")));
    }

    @Test
    void mostChoosesTheHighestTargetMetric() throws ConfigException {
        EndpointMetricsPolicy policy = policy("{\"metric_policy\":\"most\",\"target_metric\":\"free\"}");
        assertEquals(set("a"), chosen(policy, null, up("a", "free 9\n"), up("b", "free 1\n"), up("c", "free 2\n")));
    }

    @Test
    void leastIgnoresHostsWithoutTheTargetMetric() throws ConfigException {
        EndpointMetricsPolicy policy = policy("{\"metric_policy\":\"least\",\"target_metric\":\"load\"}");
        assertEquals(set("b"), chosen(policy, null, up("a", "other 0\n"), up("b", "load 5\n")));
    }

    @Test
    void onlyTheDefaultPolicyReadsTheBodyAndOnlyForTheModel() throws ConfigException {
        assertTrue(policy("{}").readsBody());
        assertFalse(policy("{}").readsPrompt());
        assertFalse(
                policy("{\"metric_policy\":\"least\",\"target_metric\":\"x\"}").readsBody());
    }

    @Test
    void aHostPastItsRateLimitShareYieldsToAnother() throws ConfigException {
        EndpointMetricsPolicy policy = policy("{\"rate_limit\":0.6}");
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < 100; i++) {
            Step step = policy.select(ctx(up("a", Samples.vllm(0, 0.1)), up("b", Samples.vllm(9, 0.9)))
                    .random(new Rng(i))
                    .build());
            counts.merge(step.host(), 1, Integer::sum);
        }
        assertTrue(counts.get("a") <= 61 && counts.get("b") >= 39, counts.toString());
    }

    @Test
    void rateLimitAcceptsANumericString() throws ConfigException {
        EndpointMetricsPolicy policy = policy("{\"rate_limit\":\"0.5\"}");
        policy.select(ctx(up("a", Samples.vllm(0, 0.1)), up("b", Samples.vllm(9, 0.9)))
                .build());
        Step second = policy.select(ctx(up("a", Samples.vllm(0, 0.1)), up("b", Samples.vllm(9, 0.9)))
                .build());
        assertEquals("b", second.host());
    }

    @Test
    void hostsWithoutGatewayMetricsAreScrapedOnTheNextTick() throws ConfigException {
        EndpointMetricsPolicy policy = policy("{\"metricsPath\":\"/stats\"}");
        policy.select(ctx(up("a"), up("b", Samples.vllm(0, 0))).build());
        assertEquals(
                Collections.singletonList(new ScrapeRequest(CLUSTER, "a", "/stats", 3000, 4 << 20)),
                policy.onTick(1_000_001));
    }

    @Test
    void scrapedMetricsAreUsedForSelection() throws ConfigException {
        EndpointMetricsPolicy policy = policy("{}");
        policy.select(ctx(up("a"), up("b")).build());
        for (ScrapeRequest scrape : policy.onTick(1_000_001)) {
            policy.onScrapeResult(
                    scrape.host(),
                    200,
                    scrape.host().equals("a") ? Samples.vllm(0, 0.1) : Samples.vllm(9, 0.9),
                    1_000_002);
        }
        assertEquals(set("a"), chosen(policy, null, up("a"), up("b")));
    }

    @Test
    void aHostIsSkippedAfterUnhealthyThresholdFailedScrapes() throws ConfigException {
        EndpointMetricsPolicy policy = policy("{\"unhealthyThreshold\":1}");
        policy.select(ctx(up("a"), up("b")).build());
        for (ScrapeRequest scrape : policy.onTick(1_000_001)) {
            boolean a = scrape.host().equals("a");
            policy.onScrapeResult(scrape.host(), a ? 200 : 0, a ? Samples.vllm(9, 0.9) : null, 1_000_002);
        }
        assertEquals(set("a"), chosen(policy, null, up("a"), up("b")));
    }

    @Test
    void theTickFollowsTheRefreshIntervalUpToOneSecond() throws ConfigException {
        assertEquals(1000, policy("{}").tickPeriodMillis());
        assertEquals(200, policy("{\"metricsRefreshInterval\":200}").tickPeriodMillis());
    }

    @Test
    void anUnknownMetricPolicyIsRejected() {
        ConfigException e = assertThrows(ConfigException.class, () -> policy("{\"metric_policy\":\"fastest\"}"));
        assertEquals("lb_config.metric_policy=fastest: must be one of default, least, most", e.getMessage());
    }

    @Test
    void leastWithoutATargetMetricIsRejected() {
        ConfigException e = assertThrows(ConfigException.class, () -> policy("{\"metric_policy\":\"least\"}"));
        assertEquals("lb_config.target_metric: is required when metric_policy is least", e.getMessage());
    }

    @Test
    void aNegativeRateLimitIsRejectedWithItsValue() {
        ConfigException e = assertThrows(ConfigException.class, () -> policy("{\"rate_limit\":-0.5}"));
        assertEquals("lb_config.rate_limit=-0.5: must be a number in [0.01, 1]", e.getMessage());
    }

    /** No host can stay under a share of 0, so every choice would yield to another host: routing inverted. */
    @Test
    void aRateLimitNoHostCanMeetOrThatNeverLimitsIsRejectedWithBothBounds() {
        ConfigException zero = assertThrows(ConfigException.class, () -> policy("{\"rate_limit\":0}"));
        assertEquals("lb_config.rate_limit=0: must be a number in [0.01, 1]", zero.getMessage());
        ConfigException above = assertThrows(ConfigException.class, () -> policy("{\"rate_limit\":1.5}"));
        assertEquals("lb_config.rate_limit=1.5: must be a number in [0.01, 1]", above.getMessage());
    }

    @Test
    void aRelativeMetricsPathIsRejected() {
        ConfigException e = assertThrows(ConfigException.class, () -> policy("{\"metricsPath\":\"metrics\"}"));
        assertEquals(
                "lb_config.metricsPath=metrics: must start with / and hold no spaces or control characters",
                e.getMessage());
    }

    @Test
    void aMetricsPathThatCannotBeSentAsItIsIsRejected() {
        for (String path : new String[] {"/my metrics", "/metrics\\r\\nx-injected: 1", "/\\u0000"}) {
            ConfigException e =
                    assertThrows(ConfigException.class, () -> policy("{\"metricsPath\":\"" + path + "\"}"), path);
            assertEquals("lb_config.metricsPath", e.path(), path);
        }
    }

    @Test
    void aTooShortRefreshIntervalIsRejectedWithItsValue() {
        ConfigException e = assertThrows(ConfigException.class, () -> policy("{\"metricsRefreshInterval\":10}"));
        assertEquals("lb_config.metricsRefreshInterval=10: must be an integer in [100, 3600000]", e.getMessage());
    }

    @Test
    void theRouteCarriesTheConfiguredPolicyName() throws ConfigException {
        Step step = new EndpointMetricsPolicy("least_busy", TestConfig.view("{}"))
                .select(ctx(up("a", Samples.vllm(0, 0))).build());
        assertEquals("least_busy", step.attributes().get(Step.ATTR_POLICY));
    }
}
