package io.ailb.lb.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.model.Endpoint;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.request.RequestInfo;
import io.ailb.lb.util.Rng;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A ROUTE Step with a response observer (cache_aware with index local): the flow tells it the route took effect,
 * the first response byte and the end, each once, and nothing for a route that never took effect. What the observer
 * counts shows in the next decision's in-flight count.
 */
class RouteObserverFlowTest {
    private static final String LOCAL = "{\"lb_policy\":\"cache_aware\",\"lb_config\":{\"index\":\"local\"}}";
    private static final String A = "10.0.0.1:8000";
    private static final String B = "10.0.0.2:8000";

    private final ScriptedFlowHost host = new ScriptedFlowHost();
    private final RoutePolicy route;
    private final Rng random = new Rng(3);

    RouteObserverFlowTest() throws ConfigException {
        route = RouteTable.parse(LOCAL.getBytes(StandardCharsets.UTF_8))
                .match("chat", "llm.example.com", "outbound|8000||llm.static");
    }

    private RequestContext bodyless() {
        return RequestContext.builder()
                .routeName("chat")
                .clusterName("outbound|8000||llm.static")
                .authority("llm.example.com")
                .request(RequestInfo.noBody())
                .endpoints(List.of(new Endpoint(A, true, null), new Endpoint(B, true, null)))
                .nowMillis(1_000)
                .random(random)
                .build();
    }

    /** Starts a flow; it is decided at once, without Redis. */
    private RequestFlow started() {
        RequestFlow flow = new RequestFlow(route, host);
        assertTrue(flow.start(bodyless()), "decided without waiting");
        return flow;
    }

    private Map<String, String> lastDecision() {
        return host.decisions.get(host.decisions.size() - 1);
    }

    @Test
    void anAppliedRouteIsCountedUntilItsStreamEndsAndNoRedisIsCalled() {
        RequestFlow first = started();
        String firstHost = lastDecision().get(RequestFlow.ATTR_SELECTED_HOST);
        assertTrue(first.wantsResponseHeaders(), "the observer follows the response");
        first.onResponseHeaders(200, null);
        first.onFirstResponseBody();

        RequestFlow second = started();
        assertEquals(1, Integer.parseInt(lastDecision().get("inflight_count")));
        assertTrue(!firstHost.equals(lastDecision().get(RequestFlow.ATTR_SELECTED_HOST)), "the first still counts");

        first.onStreamEnd();
        first.onStreamEnd();
        second.onStreamEnd();
        started();
        assertEquals(1, Integer.parseInt(lastDecision().get("inflight_count")), "both given back, once each");
        assertTrue(host.sentCommands.isEmpty(), host.sentCommands.toString());
        assertEquals(List.of(), host.warnings);
    }

    @Test
    void aResetBeforeTheFirstByteStillGivesTheCountBack() {
        RequestFlow reset = started();
        reset.onStreamEnd();
        reset.onFirstResponseBody();
        // Two hosts, two requests in flight: one each, unless the reset left its count behind.
        started();
        assertEquals(1, Integer.parseInt(lastDecision().get("inflight_count")));
        started();
        assertEquals(1, Integer.parseInt(lastDecision().get("inflight_count")));
    }

    @Test
    void aRefusedOverrideIsNeverCounted() {
        host.acceptOverride = false;
        // Their streams have not ended: a count taken for them would still be held.
        started();
        started();
        host.acceptOverride = true;
        started();
        assertEquals(1, Integer.parseInt(lastDecision().get("inflight_count")), "the refused routes left no count");
    }
}
