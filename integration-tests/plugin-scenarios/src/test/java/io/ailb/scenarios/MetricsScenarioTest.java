package io.ailb.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.ClusterHost;
import io.ailb.emulator.Delivery;
import io.ailb.emulator.Gateway;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.MetricRegistry;
import io.ailb.emulator.PluginVm;
import io.ailb.emulator.VirtualClock;
import io.ailb.lb.flow.BackendMetrics;
import io.ailb.lb.flow.FlowMetrics;
import io.ailb.lb.request.RequestInfo;
import io.ailb.lb.request.RequestParser;
import io.ailb.lb.shell.ShellFixture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The operator's metrics as the real .wasm defines them in the gateway's stats store. */
@Timeout(120)
class MetricsScenarioTest {
    private static final String PREFIX_CACHE =
            "{\"lb_policy\":\"prefix_cache\",\"lb_config\":{" + ShellFixture.redisConfig("") + "}}";
    private static final String GLOBAL_LEAST_REQUEST =
            "{\"lb_policy\":\"global_least_request\",\"lb_config\":{" + ShellFixture.redisConfig("") + "}}";

    @BeforeEach
    void emptyRedis() {
        PluginFixture.redis().flushAll();
    }

    private static RequestInfo parsed(String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return RequestParser.parse("application/json", null, bytes, bytes.length);
    }

    @Test
    void theDecisionTimeSpansTheBodyUploadAndTheRedisRoundTrip() {
        VirtualClock clock = VirtualClock.startingAt(Instant.parse("2026-01-05T09:00:00Z"));
        Gateway gateway = PluginFixture.gateway(PREFIX_CACHE)
                .withClock(clock)
                .withDelivery(Delivery.MANUAL)
                .build();
        PluginVm vm = gateway.startVm();
        HttpStream stream = PluginFixture.stream(vm);

        stream.sendRequestHeaders(PluginFixture.post(), false);
        clock.advance(Duration.ofMillis(20));
        stream.sendRequestBody(ShellFixture.chat("sys", "hello"), true);
        clock.advance(Duration.ofMillis(7));
        vm.deliverPending();

        assertTrue(stream.upstreamOverride().isPresent());
        assertEquals(List.of(27L), gateway.metrics().samples(FlowMetrics.DECISION_TIME_MS));
    }

    @Test
    void aBackendReportsItsRequestsItsPromptAndMatchedTokensAndWhatIsInFlight() {
        Gateway gateway = PluginFixture.gateway(PREFIX_CACHE).build();
        PluginVm vm = gateway.startVm();
        MetricRegistry metrics = gateway.metrics();
        String firstTurn = ShellFixture.chat("You answer in one line.", "Name three primes.");
        String secondTurn =
                ShellFixture.chat("You answer in one line.", "Name three primes.", "2, 3 and 5.", "Three more?");

        HttpStream first = PluginFixture.send(vm, firstTurn);
        String host = first.upstreamOverride().orElseThrow();
        assertEquals(1L, metrics.value(BackendMetrics.name(host, BackendMetrics.INFLIGHT)));
        assertEquals(1L, metrics.value(BackendMetrics.name(host, BackendMetrics.INFLIGHT_GLOBAL)));
        first.complete();
        assertEquals(0L, metrics.value(BackendMetrics.name(host, BackendMetrics.INFLIGHT)));

        HttpStream second = PluginFixture.send(vm, secondTurn);
        assertEquals(host, second.upstreamOverride().orElseThrow(), "the conversation stays where it is cached");
        second.complete();

        RequestInfo one = parsed(firstTurn);
        RequestInfo two = parsed(secondTurn);
        assertEquals(2L, metrics.value(BackendMetrics.name(host, BackendMetrics.ROUTED)));
        assertEquals(
                (long) one.estimatedPromptTokens() + two.estimatedPromptTokens(),
                metrics.value(BackendMetrics.name(host, BackendMetrics.PROMPT_TOKENS)));
        assertEquals(
                (long) two.prefixTokens().get(0),
                metrics.value(BackendMetrics.name(host, BackendMetrics.MATCHED_TOKENS)),
                "the second turn found its first block; the first turn found nothing");
        assertEquals(0L, metrics.value(BackendMetrics.name(host, BackendMetrics.INFLIGHT)));
        assertEquals(2, metrics.samples(FlowMetrics.DECISION_TIME_MS).size());
    }

    @Test
    void theInFlightGaugeIsTheGatewaysSumOverItsVms() {
        Gateway gateway = PluginFixture.gateway(GLOBAL_LEAST_REQUEST).build();
        List<PluginVm> vms = gateway.start(2);
        String inflightOnA = BackendMetrics.name(ShellFixture.A, BackendMetrics.INFLIGHT);

        HttpStream one = sendToOnlyA(vms.get(0), "one");
        HttpStream two = sendToOnlyA(vms.get(1), "two");
        assertEquals(2L, gateway.metrics().value(inflightOnA), "both workers add to the one Envoy gauge");
        assertEquals(2L, gateway.metrics().value(BackendMetrics.name(ShellFixture.A, BackendMetrics.INFLIGHT_GLOBAL)));

        one.complete();
        assertEquals(1L, gateway.metrics().value(inflightOnA));
        two.complete();
        assertEquals(0L, gateway.metrics().value(inflightOnA));
        assertEquals(2L, gateway.metrics().value(BackendMetrics.name(ShellFixture.A, BackendMetrics.ROUTED)));
    }

    private static HttpStream sendToOnlyA(PluginVm vm, String text) {
        HttpStream stream = PluginFixture.stream(vm).withUpstreamHosts(List.of(ClusterHost.healthy(ShellFixture.A)));
        stream.sendRequestHeaders(PluginFixture.post(), false);
        stream.sendRequestBody(ShellFixture.chat("s", text), true);
        assertEquals(ShellFixture.A, stream.upstreamOverride().orElseThrow());
        return stream;
    }
}
