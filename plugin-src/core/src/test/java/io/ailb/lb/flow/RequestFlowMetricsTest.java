package io.ailb.lb.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.resp.RespValue;
import io.ailb.lb.config.ConfigException;
import io.ailb.lb.metrics.Samples;
import io.ailb.lb.model.Endpoint;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.request.RequestInfo;
import io.ailb.lb.request.RequestParser;
import io.ailb.lb.util.Rng;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the flow records for an operator: decision time and the per-backend metrics. */
class RequestFlowMetricsTest {
    private static final String REDIS = "\"serviceFQDN\":\"redis.static\",\"servicePort\":6379";
    private static final String GLR = "{\"lb_policy\":\"global_least_request\",\"lb_config\":{" + REDIS + "}}";
    private static final String PREFIX_CACHE = "{\"lb_policy\":\"prefix_cache\",\"lb_config\":{" + REDIS + "}}";
    private static final String LEAST_BUSY = "{\"lb_policy\":\"least_busy\"}";
    private static final String A = "10.0.0.1:8000";
    private static final String B = "10.0.0.2:8000";

    private final ScriptedFlowHost host = new ScriptedFlowHost();
    private RoutePolicy route;

    private RequestFlow flow(String config, long arrivedAtMillis) throws ConfigException {
        RouteTable table = RouteTable.parse(config.getBytes(StandardCharsets.UTF_8));
        route = table.match("chat", "llm.example.com", "outbound|8000||llm.static");
        return new RequestFlow(route, host, arrivedAtMillis);
    }

    private static RequestContext request(RequestInfo info, Endpoint... endpoints) {
        return RequestContext.builder()
                .routeName("chat")
                .clusterName("outbound|8000||llm.static")
                .authority("llm.example.com")
                .request(info)
                .endpoints(List.of(endpoints))
                .nowMillis(1_000)
                .random(new Rng(7))
                .build();
    }

    private static RequestContext twoHealthyHosts(RequestInfo info) {
        return request(info, new Endpoint(A, true, null), new Endpoint(B, true, null));
    }

    private static RespValue chosen(String hostAddress, long count, long depth) {
        return RespValue.array(
                RespValue.bulkString("ok"),
                RespValue.bulkString(hostAddress),
                RespValue.integer(count),
                RespValue.integer(depth));
    }

    /** A three-turn chat: blocks close after each user message. */
    private static RequestInfo conversation() {
        byte[] body = ("{\"model\":\"m\",\"messages\":["
                        + "{\"role\":\"system\",\"content\":\"You are a careful assistant for the billing team.\"},"
                        + "{\"role\":\"user\",\"content\":\"Why was I charged twice this month?\"},"
                        + "{\"role\":\"assistant\",\"content\":\"The second charge is a pending authorisation.\"},"
                        + "{\"role\":\"user\",\"content\":\"When does it disappear from my statement?\"}]}")
                .getBytes(StandardCharsets.UTF_8);
        return RequestParser.parse("application/json", null, body, body.length);
    }

    private Long gauge(String host, String kind) {
        return this.host.gauges.get(BackendMetrics.name(host, kind));
    }

    private Integer counter(String host, String kind) {
        return this.host.counters.get(BackendMetrics.name(host, kind));
    }

    @Test
    void theDecisionTimeRunsFromTheHeadersToTheRedisChoice() throws Exception {
        RequestFlow flow = flow(GLR, 990);
        flow.start(twoHealthyHosts(RequestInfo.noBody()));
        host.now = 1_037;
        host.reply(chosen(A, 1, 0));

        assertEquals(List.of(47L), host.samples.get(FlowMetrics.DECISION_TIME_MS));
    }

    @Test
    void aFallbackAndALocalReplyAreDecisionsToo() throws Exception {
        flow(GLR, 1_000).start(request(RequestInfo.noBody(), new Endpoint(A, false, null)));
        host.now = 1_012;
        RequestFlow rejected = flow(GLR.replace("6379}", "6379,\"maxRequestCount\":2}"), 1_005);
        rejected.start(twoHealthyHosts(RequestInfo.noBody()));
        host.reply(RespValue.array(RespValue.bulkString("full"), RespValue.bulkString(A), RespValue.integer(2)));

        assertEquals(List.of(0L, 7L), host.samples.get(FlowMetrics.DECISION_TIME_MS));
        assertEquals(429, host.localReplyStatus);
    }

    @Test
    void aStreamGoneBeforeTheReplyNeedsNoDecisionAndCountsNothingInFlight() throws Exception {
        RequestFlow flow = flow(GLR, 1_000);
        flow.start(twoHealthyHosts(RequestInfo.noBody()));
        flow.onStreamEnd();
        host.reply(chosen(A, 1, 0));

        assertFalse(host.samples.containsKey(FlowMetrics.DECISION_TIME_MS), host.samples.toString());
        assertTrue(host.gauges.isEmpty(), host.gauges.toString());
        assertNull(counter(A, BackendMetrics.ROUTED));
    }

    @Test
    void aRoutedRequestCountsOnItsBackendAndIsInFlightThereUntilItsStreamEnds() throws Exception {
        RequestFlow flow = flow(GLR, 1_000);
        flow.start(twoHealthyHosts(RequestInfo.noBody()));
        host.reply(chosen(B, 4, 0));

        assertEquals(1, counter(B, BackendMetrics.ROUTED));
        assertEquals(1L, gauge(B, BackendMetrics.INFLIGHT));
        assertEquals(4L, gauge(B, BackendMetrics.INFLIGHT_GLOBAL), "the count Redis reported for every gateway");
        assertNull(counter(A, BackendMetrics.ROUTED));

        flow.onStreamEnd();
        flow.onStreamEnd();
        assertEquals(0L, gauge(B, BackendMetrics.INFLIGHT), "given back once");
        assertEquals(4L, gauge(B, BackendMetrics.INFLIGHT_GLOBAL), "only the next decision updates it");
    }

    @Test
    void aPolicyWithoutRedisCountsInFlightOnlyOnThisGateway() throws Exception {
        RequestFlow first = flow(LEAST_BUSY, 1_000);
        RequestFlow second = new RequestFlow(route, host, 1_000);
        Endpoint onlyA = new Endpoint(A, true, Samples.vllm(0, 0.1));
        first.start(request(RequestInfo.noBody(), onlyA));
        second.start(request(RequestInfo.noBody(), onlyA));
        assertEquals(2L, gauge(A, BackendMetrics.INFLIGHT));

        first.onStreamEnd();
        assertEquals(1L, gauge(A, BackendMetrics.INFLIGHT));
        assertEquals(2, counter(A, BackendMetrics.ROUTED));
        assertNull(gauge(A, BackendMetrics.INFLIGHT_GLOBAL), "no shared count to report");
    }

    @Test
    void aPrefixMatchCountsThePromptAndTheMatchedBlocksTokensOnTheBackend() throws Exception {
        RequestInfo info = conversation();
        assertEquals(2, info.prefixTokens().size(), "system+user, then assistant+user");
        RequestFlow flow = flow(PREFIX_CACHE, 1_000);
        flow.start(twoHealthyHosts(info));
        host.reply(chosen(A, 1, 1));

        assertEquals(info.estimatedPromptTokens(), counter(A, BackendMetrics.PROMPT_TOKENS));
        assertEquals(info.prefixTokens().get(0), counter(A, BackendMetrics.MATCHED_TOKENS));
        assertTrue(counter(A, BackendMetrics.MATCHED_TOKENS) < counter(A, BackendMetrics.PROMPT_TOKENS));
    }

    @Test
    void aMissOnAPrefixAwarePolicyCountsThePromptWithNothingMatched() throws Exception {
        RequestInfo info = conversation();
        RequestFlow flow = flow(PREFIX_CACHE, 1_000);
        flow.start(twoHealthyHosts(info));
        host.reply(chosen(B, 1, 0));

        assertEquals(info.estimatedPromptTokens(), counter(B, BackendMetrics.PROMPT_TOKENS));
        assertEquals(0, counter(B, BackendMetrics.MATCHED_TOKENS));
    }

    @Test
    void aPolicyThatKnowsNoPrefixesLeavesTheHitRatioAlone() throws Exception {
        RequestFlow flow = flow(GLR, 1_000);
        flow.start(twoHealthyHosts(conversation()));
        host.reply(chosen(A, 1, 0));

        assertNull(counter(A, BackendMetrics.PROMPT_TOKENS));
        assertNull(counter(A, BackendMetrics.MATCHED_TOKENS));
    }

    @Test
    void aRefusedOverrideIsNotCountedOnTheBackend() throws Exception {
        host.acceptOverride = false;
        RequestFlow flow = flow(GLR, 1_000);
        flow.start(twoHealthyHosts(RequestInfo.noBody()));
        host.reply(chosen(A, 1, 0));
        flow.onStreamEnd();

        assertNull(counter(A, BackendMetrics.ROUTED));
        assertTrue(host.gauges.isEmpty(), host.gauges.toString());
        assertEquals(1, host.counters.get(FlowMetrics.OVERRIDE_FAILED));
    }

    @Test
    void eachBackendsNamesAreBuiltOnceAndCarryTheHostBetweenFixedParts() throws Exception {
        flow(GLR, 1_000);

        assertSame(route.backendMetrics(A), route.backendMetrics(A));
        assertEquals(
                "ailb.backend.10.0.0.1:8000.matched_tokens",
                route.backendMetrics(A).matchedTokens());
        assertEquals(
                "ailb.backend.10.0.0.2:8000.inflight_global",
                route.backendMetrics(B).inflightGlobal());
    }
}
