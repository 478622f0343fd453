package io.ailb.lb.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.resp.RespValue;
import io.ailb.lb.config.ConfigException;
import io.ailb.lb.model.Endpoint;
import io.ailb.lb.policy.FallbackReason;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.policy.inflight.InflightScripts;
import io.ailb.lb.request.RequestInfo;
import io.ailb.lb.util.Rng;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RequestFlowTest {
    private static final String GLR = "{\"lb_policy\":\"global_least_request\","
            + "\"lb_config\":{\"serviceFQDN\":\"redis.static\",\"servicePort\":6379}}";
    private static final String A = "10.0.0.1:8000";
    private static final String B = "10.0.0.2:8000";

    private final ScriptedFlowHost host = new ScriptedFlowHost();

    private static final String PREFIX_CACHE = "{\"lb_policy\":\"prefix_cache\","
            + "\"lb_config\":{\"serviceFQDN\":\"redis.static\",\"servicePort\":6379}}";

    private static RespValue chosen(String hostAddress, long count) {
        return chosen(hostAddress, count, 0);
    }

    private static RespValue chosen(String hostAddress, long count, long depth) {
        return RespValue.array(
                RespValue.bulkString("ok"),
                RespValue.bulkString(hostAddress),
                RespValue.integer(count),
                RespValue.integer(depth));
    }

    private static RequestContext request(Endpoint... endpoints) {
        return RequestContext.builder()
                .routeName("chat")
                .clusterName("outbound|8000||llm.static")
                .authority("llm.example.com")
                .request(RequestInfo.noBody())
                .endpoints(List.of(endpoints))
                .nowMillis(1_000)
                .random(new Rng(7))
                .build();
    }

    private static RequestContext twoHealthyHosts() {
        return request(new Endpoint(A, true, null), new Endpoint(B, true, null));
    }

    /** The lease id of a select.lua call as the host saw it: ARGV[6]. */
    private static String leaseOf(String selectCall) {
        String[] words = selectCall.split(" ");
        int numKeys = Integer.parseInt(words[2]);
        return words[3 + numKeys + 5];
    }

    /** Asserts that {@code call} is release.lua for {@code lease}. */
    private static void assertReleaseOf(String lease, String call) {
        assertTrue(call.startsWith("EVALSHA " + InflightScripts.RELEASE.sha1() + " 3 "), call);
        assertTrue(call.endsWith(":lease-hosts " + lease), call);
    }

    private RequestFlow flow(String config) throws ConfigException {
        RouteTable table = RouteTable.parse(config.getBytes(StandardCharsets.UTF_8));
        return new RequestFlow(table.match("chat", "llm.example.com", "outbound|8000||llm.static"), host);
    }

    @Test
    void redisChoiceOverridesTheUpstreamAndResumesTheHeldRequestOnce() throws Exception {
        RequestFlow flow = flow(GLR);

        assertFalse(flow.start(twoHealthyHosts()), "held until Redis answers");
        assertEquals(1, host.commandsStartingWith("EVALSHA"));
        host.reply(chosen(B, 1));

        assertEquals(List.of(B), host.overrides);
        assertEquals(1, host.resumes);
        assertEquals(B, host.decisions.get(0).get(RequestFlow.ATTR_SELECTED_HOST));
        assertEquals("global_least_request", host.decisions.get(0).get("lb_policy"));
    }

    @Test
    void aPrefixMatchIsLoggedInItsPlaceAndSampledAsTheMatchDepth() throws Exception {
        RequestFlow flow = flow(PREFIX_CACHE);
        flow.start(twoHealthyHosts());
        host.reply(chosen(A, 2, 3));

        assertEquals(
                List.of("lb_policy", "inflight_count", "cache_hit", "prefix_length", "selected_host"),
                List.copyOf(host.decisions.get(0).keySet()));
        assertEquals("true", host.decisions.get(0).get("cache_hit"));
        assertEquals("3", host.decisions.get(0).get("prefix_length"));
        assertEquals(List.of(3L), host.samples.get(FlowMetrics.PREFIX_MATCH_DEPTH));
    }

    @Test
    void aPolicyWithoutPrefixesSamplesNoMatchDepth() throws Exception {
        RequestFlow flow = flow(GLR);
        flow.start(twoHealthyHosts());
        host.reply(chosen(A, 1));

        assertEquals(List.of(A), host.overrides);
        assertFalse(host.samples.containsKey(FlowMetrics.PREFIX_MATCH_DEPTH), host.samples.toString());
        assertFalse(host.decisions.get(0).containsKey("prefix_length"));
    }

    @Test
    void theInflightCountIsReleasedExactlyOnceWhenTheStreamEnds() throws Exception {
        RequestFlow flow = flow(GLR);
        flow.start(twoHealthyHosts());
        host.reply(chosen(A, 1));
        assertTrue(host.pending.isEmpty(), "nothing released before the stream ends");

        String lease = leaseOf(host.sentCommands.get(0));
        flow.onStreamEnd();
        flow.onStreamEnd();

        assertEquals(1, host.pending.size());
        assertReleaseOf(lease, host.pending.peek().command);
        assertEquals(1, host.counters.get(FlowMetrics.RELEASES_SENT));
    }

    @Test
    void aScriptRedisDoesNotKnowIsSentOnceMoreWithItsSource() throws Exception {
        RequestFlow flow = flow(GLR);
        flow.start(twoHealthyHosts());

        host.reply(RespValue.error("NOSCRIPT No matching script. Please use EVAL."));
        assertEquals(1, host.commandsStartingWith("EVAL "), host.sentCommands.toString());
        host.reply(chosen(A, 1));

        assertEquals(List.of(A), host.overrides);
        assertEquals(1, host.resumes);
        flow.onStreamEnd();
        assertEquals(1, host.pending.size(), "one lease, one release, however many sends the decision took");
        assertReleaseOf(leaseOf(host.sentCommands.get(0)), host.pending.peek().command);
    }

    @Test
    void aReplyArrivingAfterTheStreamWasResetReleasesAtOnceAndTouchesNothingElse() throws Exception {
        RequestFlow flow = flow(GLR);
        flow.start(twoHealthyHosts());
        String lease = leaseOf(host.sentCommands.get(0));

        flow.onStreamEnd();
        assertEquals(1, host.pending.size(), "no release may overtake the increment it gives back");
        host.reply(chosen(A, 1));

        assertTrue(host.overrides.isEmpty());
        assertEquals(0, host.resumes);
        assertEquals(1, host.pending.size(), "the release went out with the late reply");
        assertReleaseOf(lease, host.pending.peek().command);
        flow.onStreamEnd();
        assertEquals(1, host.pending.size(), "and only once");
        assertEquals(1, host.counters.get(FlowMetrics.RELEASES_SENT));
    }

    @Test
    void aDecisionCallThatFailsAfterTheStreamWasResetReleasesItsLeaseOnceWhenItFails() throws Exception {
        RequestFlow flow = flow(GLR);
        flow.start(twoHealthyHosts());
        String lease = leaseOf(host.sentCommands.get(0));

        flow.onStreamEnd();
        assertEquals(1, host.pending.size(), "nothing sent while the decision call is in flight");
        host.fail("timeout");

        assertEquals(0, host.resumes);
        assertEquals(1, host.pending.size());
        assertReleaseOf(lease, host.pending.peek().command);
        flow.onStreamEnd();
        assertEquals(1, host.pending.size());
    }

    @Test
    void aRefusedOverrideStillResumesAndStillReleases() throws Exception {
        host.acceptOverride = false;
        RequestFlow flow = flow(GLR);
        flow.start(twoHealthyHosts());
        host.reply(chosen(A, 1));

        assertEquals(1, host.resumes);
        assertEquals(1, host.counters.get(FlowMetrics.OVERRIDE_FAILED));
        flow.onStreamEnd();
        assertEquals(1, host.pending.size());
    }

    @Test
    void aRedisFailureLeavesTheChoiceToTheClusterAndResumes() throws Exception {
        RequestFlow flow = flow(GLR);
        flow.start(twoHealthyHosts());
        host.fail("connection reset");

        assertTrue(host.overrides.isEmpty());
        assertEquals(1, host.resumes);
        assertEquals(1, host.counters.get(FlowMetrics.fallback(FallbackReason.REDIS_ERROR)));
        assertEquals("redis_error", host.decisions.get(0).get(RequestFlow.ATTR_FALLBACK));
        assertTrue(host.pending.isEmpty(), "nothing released before the stream ends");
        flow.onStreamEnd();
        assertEquals(1, host.pending.size(), "Redis may have counted the request before the reset: release the lease");
        assertReleaseOf(leaseOf(host.sentCommands.get(0)), host.pending.peek().command);
        flow.onStreamEnd();
        assertEquals(1, host.pending.size());
    }

    @Test
    void anErrorReplyStillReleasesTheLease() throws Exception {
        RequestFlow flow = flow(GLR);
        flow.start(twoHealthyHosts());
        host.reply(RespValue.error("ERR something went wrong in the script"));

        assertEquals(1, host.resumes);
        assertEquals(1, host.counters.get(FlowMetrics.fallback(FallbackReason.REDIS_ERROR)));
        flow.onStreamEnd();
        assertEquals(1, host.pending.size());
        assertReleaseOf(leaseOf(host.sentCommands.get(0)), host.pending.peek().command);
    }

    @Test
    void aRedisThatCannotBeReachedDecidesAtOnceWithoutHoldingTheRequest() throws Exception {
        host.acceptRedis = false;
        RequestFlow flow = flow(GLR);

        assertTrue(flow.start(twoHealthyHosts()));
        assertEquals(0, host.resumes, "never held, so never resumed");
        assertEquals(1, host.counters.get(FlowMetrics.fallback(FallbackReason.REDIS_ERROR)));
        host.acceptRedis = true;
        flow.onStreamEnd();
        assertTrue(host.pending.isEmpty(), "a call that never left cannot have counted: no release");
        assertEquals(null, host.counters.get(FlowMetrics.RELEASES_SENT));
    }

    @Test
    void aFullBackendIsAnsweredWith429AndOnlyTheHarmlessLeaseReleaseFollows() throws Exception {
        RequestFlow flow = flow(GLR.replace("6379}", "6379,\"maxRequestCount\":2}"));
        flow.start(twoHealthyHosts());
        host.reply(RespValue.array(RespValue.bulkString("full"), RespValue.bulkString(A), RespValue.integer(2)));

        assertEquals(429, host.localReplyStatus);
        assertEquals(0, host.resumes, "a local reply ends the request; resuming it would be wrong");
        flow.onStreamEnd();
        assertEquals(1, host.pending.size(), "the lease was never written: its release finds nothing");
        assertReleaseOf(leaseOf(host.sentCommands.get(0)), host.pending.peek().command);
    }

    @Test
    void noHealthyHostFallsBackWithoutAskingRedis() throws Exception {
        RequestFlow flow = flow(GLR);

        assertTrue(flow.start(request(new Endpoint(A, false, null))));
        assertTrue(host.sentCommands.isEmpty());
        assertEquals(1, host.counters.get(FlowMetrics.fallback(FallbackReason.NO_HEALTHY_HOST)));
    }

    @Test
    void theRulesFallbackPolicyTakesOverWhenRedisFails() throws Exception {
        String metrics = "vllm:num_requests_waiting 0\nvllm:num_requests_running 1\nvllm:gpu_cache_usage_perc 0.1\n";
        String busy = "vllm:num_requests_waiting 9\nvllm:num_requests_running 9\nvllm:gpu_cache_usage_perc 0.9\n";
        RequestFlow flow = flow("{\"lb_policy\":\"prefix_cache\",\"fallback_policy\":\"least_busy\","
                + "\"fallback_on_error\":true,\"lb_config\":{\"serviceFQDN\":\"redis.static\",\"servicePort\":6379}}");
        flow.start(request(new Endpoint(A, true, busy), new Endpoint(B, true, metrics)));

        host.fail("timeout");

        assertEquals(List.of(B), host.overrides, "least_busy picked the idle backend");
        assertEquals(1, host.resumes);
        assertEquals(1, host.counters.get(FlowMetrics.FALLBACK_POLICY_USED));
        flow.onStreamEnd();
        assertEquals(1, host.pending.size(), "the timed-out call's lease is still released");
        assertReleaseOf(leaseOf(host.sentCommands.get(0)), host.pending.peek().command);
    }

    @Test
    void aFallbackPolicyIsOnlyUsedWhenFallbackOnErrorIsOn() throws Exception {
        RequestFlow flow = flow("{\"lb_policy\":\"global_least_request\",\"fallback_policy\":\"least_busy\","
                + "\"lb_config\":{\"serviceFQDN\":\"redis.static\",\"servicePort\":6379}}");
        flow.start(twoHealthyHosts());
        host.fail("timeout");

        assertTrue(host.overrides.isEmpty());
        assertEquals(null, host.counters.get(FlowMetrics.FALLBACK_POLICY_USED));
    }

    @Test
    void anUnknownFallbackPolicyIsAConfigurationError() {
        ConfigException error = org.junit.jupiter.api.Assertions.assertThrows(
                ConfigException.class,
                () -> RouteTable.parse(("{\"_rules_\":[{\"_match_route_\":[\"chat\"],\"lb_policy\":\"prefix_cache\","
                                + "\"fallback_policy\":\"fastest\",\"lb_config\":{\"serviceFQDN\":\"r\",\"servicePort\":1}}]}")
                        .getBytes(StandardCharsets.UTF_8)));
        assertTrue(error.getMessage().startsWith("_rules_[0].fallback_policy"), error.getMessage());
        assertTrue(error.getMessage().contains("fastest"), error.getMessage());
    }

    @Test
    void aRouteReadsThePromptWhenEitherOfItsPoliciesDoes() throws Exception {
        String redis = ",\"lb_config\":{\"serviceFQDN\":\"redis.static\",\"servicePort\":6379}}";
        assertFalse(route("{\"lb_policy\":\"least_busy\",\"lb_config\":{}}").readsPrompt(), "the model only");
        assertTrue(route("{\"lb_policy\":\"least_busy\",\"lb_config\":{}}").readsBody());
        assertTrue(route("{\"lb_policy\":\"least_busy\",\"fallback_policy\":\"prefix_cache\","
                        + "\"fallback_on_error\":true" + redis)
                .readsPrompt());
        assertTrue(route("{\"lb_policy\":\"prefix_cache\",\"fallback_policy\":\"least_busy\","
                        + "\"fallback_on_error\":true" + redis)
                .readsPrompt());
        assertFalse(route("{\"lb_policy\":\"global_least_request\"" + redis).readsPrompt());
    }

    private static RoutePolicy route(String config) throws ConfigException {
        return RouteTable.parse(config.getBytes(StandardCharsets.UTF_8))
                .match("chat", "llm.example.com", "outbound|8000||llm.static");
    }
}
