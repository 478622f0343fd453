package io.ailb.lb.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.resp.RespValue;
import io.ailb.lb.config.ConfigException;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.request.RequestInfo;
import io.ailb.lb.util.Rng;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** lb_type cluster through the flow: the header write, the response callbacks, failures, and the Redis round trip. */
class ClusterFlowTest {
    private static final String A = "outbound|80||qwen-a.dns";
    private static final String B = "outbound|80||qwen-b.dns";
    private static final String LEAST_BUSY = "{\"lb_type\":\"cluster\",\"lb_policy\":\"cluster_metrics\","
            + "\"lb_config\":{\"mode\":\"LeastBusy\",\"service_list\":[\"" + A + "\",\"" + B + "\"]}}";
    private static final String GLOBAL = "{\"lb_type\":\"cluster\",\"lb_policy\":\"cluster_metrics\","
            + "\"lb_config\":{\"mode\":\"AdaptiveScore\",\"service_list\":[\"" + A + "\",\"" + B + "\"],"
            + "\"global_inflight_enabled\":true,\"serviceFQDN\":\"redis.static\",\"servicePort\":6379}}";
    private static final String HEADER = "x-higress-target-cluster";

    private final ScriptedFlowHost host = new ScriptedFlowHost();

    private static RoutePolicy route(String config) throws ConfigException {
        return RouteTable.parse(config.getBytes(StandardCharsets.UTF_8)).match("chat", "llm.example.com", "c");
    }

    private RequestContext request(long now) {
        return RequestContext.builder()
                .routeName("chat")
                .clusterName("c")
                .request(RequestInfo.noBody())
                .nowMillis(now)
                .random(new Rng(3))
                .build();
    }

    @Test
    void theChosenServiceIsWrittenIntoTheHeaderAndCountedInFlightUntilTheStreamEnds() throws ConfigException {
        RoutePolicy route = route(LEAST_BUSY);
        RequestFlow first = new RequestFlow(route, host);
        assertTrue(first.start(request(1_000)), "decided at once: no Redis");
        String firstService = host.requestHeaders.get(HEADER);
        assertEquals(firstService, host.decisions.get(0).get(RequestFlow.ATTR_SELECTED_CLUSTER));
        assertEquals(1, host.counters.get(FlowMetrics.routed("cluster_metrics")));

        RequestFlow second = new RequestFlow(route, host);
        second.start(request(1_001));
        String secondService = host.requestHeaders.get(HEADER);
        assertTrue(!secondService.equals(firstService), "the other service has fewer in flight");

        // The first ends: its service has fewer in flight again, so it takes the next request.
        first.onStreamEnd();
        new RequestFlow(route, host).start(request(1_002));
        assertEquals(firstService, host.requestHeaders.get(HEADER));
    }

    @Test
    void aResponseFromAnotherClusterIsCountedAndWarnedOncePerRule() throws ConfigException {
        RoutePolicy route = route(LEAST_BUSY);
        for (int i = 0; i < 3; i++) {
            RequestFlow flow = new RequestFlow(route, host);
            flow.start(request(1_000));
            flow.onResponseHeaders(200, "outbound|80||default.dns");
            flow.onStreamEnd();
        }
        assertEquals(3, host.counters.get(FlowMetrics.CLUSTER_HEADER_IGNORED));
        assertEquals(1, host.warnings.size(), host.warnings.toString());
        assertTrue(host.warnings.get(0).contains("the route does not select its cluster by the header"));

        RequestFlow served = new RequestFlow(route, host);
        served.start(request(1_000));
        served.onResponseHeaders(200, host.requestHeaders.get(HEADER));
        assertEquals(3, host.counters.get(FlowMetrics.CLUSTER_HEADER_IGNORED), "the chosen cluster served");
    }

    @Test
    void aHeaderTheGatewayRefusesLeavesTheRouteItsOwnCluster() throws ConfigException {
        host.acceptHeader = false;
        RequestFlow flow = new RequestFlow(route(LEAST_BUSY), host);
        assertTrue(flow.start(request(1_000)));
        assertEquals(1, host.counters.get(FlowMetrics.CLUSTER_HEADER_FAILED));
        assertEquals("header_failed", host.decisions.get(0).get(RequestFlow.ATTR_FALLBACK));
        assertNull(host.counters.get(FlowMetrics.routed("cluster_metrics")));
        flow.onStreamEnd();
    }

    @Test
    void theGlobalChoiceComesFromRedisAndItsLeaseIsReleasedOnce() throws ConfigException {
        RequestFlow flow = new RequestFlow(route(GLOBAL), host);
        assertTrue(!flow.start(request(1_000)), "held until Redis answers");
        String call = host.sentCommands.get(0);
        assertTrue(call.startsWith("EVALSHA "), call);
        host.reply(RespValue.array(RespValue.bulkString(B), RespValue.integer(4)));
        assertEquals(B, host.requestHeaders.get(HEADER));
        assertEquals("4", host.decisions.get(0).get("inflight_count"));
        assertEquals(1, host.resumes);

        flow.onStreamEnd();
        flow.onStreamEnd();
        assertEquals(2, host.sentCommands.size(), "one release: " + host.sentCommands);
        assertTrue(host.sentCommands.get(1).endsWith(":lease-hosts " + leaseOf(call)), host.sentCommands.get(1));
    }

    @Test
    void aRedisFailureKeepsTheLocalChoiceAndStillReleasesTheLease() throws ConfigException {
        RequestFlow flow = new RequestFlow(route(GLOBAL), host);
        flow.start(request(1_000));
        host.fail("timeout");
        assertTrue(List.of(A, B).contains(host.requestHeaders.get(HEADER)), host.requestHeaders.toString());
        assertNull(host.decisions.get(0).get(RequestFlow.ATTR_FALLBACK));
        assertEquals(1, host.resumes);
        flow.onStreamEnd();
        assertEquals(2, host.sentCommands.size(), "the lease is released: the call's outcome is unknown");
    }

    @Test
    void aServiceRedisNamesThatWasNotACandidateKeepsTheLocalChoice() throws ConfigException {
        RequestFlow flow = new RequestFlow(route(GLOBAL), host);
        flow.start(request(1_000));
        host.reply(RespValue.array(RespValue.bulkString("outbound|80||evil.dns"), RespValue.integer(1)));
        assertTrue(List.of(A, B).contains(host.requestHeaders.get(HEADER)), host.requestHeaders.toString());
    }

    @Test
    void aStreamThatEndsBeforeRedisAnswersWritesNothingAndReleasesAfterTheReply() throws ConfigException {
        RequestFlow flow = new RequestFlow(route(GLOBAL), host);
        flow.start(request(1_000));
        flow.onStreamEnd();
        assertEquals(1, host.sentCommands.size(), "no release while the decision call is out");
        host.reply(RespValue.array(RespValue.bulkString(A), RespValue.integer(1)));
        assertTrue(host.requestHeaders.isEmpty(), "the stream is gone: " + host.requestHeaders);
        assertEquals(2, host.sentCommands.size(), "released after the reply");
        assertEquals(0, host.resumes);
    }

    /** ARGV[2] of cluster_select.lua as the host saw the call: "EVALSHA sha 3 k1 k2 k3 rand lease ...". */
    private static String leaseOf(String call) {
        return call.split(" ")[7];
    }

    @Test
    void onlyAFlowThatWroteAClusterOrHasAnObserverWantsTheResponseHeaders() throws ConfigException {
        RequestFlow cluster = new RequestFlow(route(LEAST_BUSY), host);
        cluster.start(request(1_000));
        assertTrue(cluster.wantsResponseHeaders());
        cluster.onStreamEnd();
        assertTrue(!cluster.wantsResponseHeaders(), "over");

        RequestFlow endpoint = new RequestFlow(
                RouteTable.parse("{\"lb_policy\":\"least_busy\"}".getBytes(StandardCharsets.UTF_8))
                        .match("chat", "llm.example.com", "c"),
                host);
        endpoint.start(request(1_000));
        assertTrue(!endpoint.wantsResponseHeaders());
    }

    @Test
    void decisionsCarryThePolicyName() throws ConfigException {
        RequestFlow flow = new RequestFlow(route(LEAST_BUSY), host);
        flow.start(request(1_000));
        Map<String, String> decision = host.decisions.get(0);
        assertEquals("cluster_metrics", decision.get("lb_policy"));
    }
}
