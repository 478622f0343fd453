package io.ailb.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.Gateway;
import io.ailb.emulator.HeaderMap;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.PluginVm;
import io.ailb.emulator.VirtualClock;
import io.ailb.lb.shell.ShellFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * lb_type cluster through the real .wasm: the header the route selects its cluster by, the response-side
 * measurements on a virtual clock, the Go plugin's hash slots, and the in-flight counts shared in a real Redis.
 * Envoy's route re-selection by the header is played by the test: it sets the stream's {@code cluster_name} to the
 * header's value before the response, as a route with {@code cluster_header} would.
 */
@Timeout(300)
class ClusterScenarioTest {
    private static final String HEADER = "x-higress-target-cluster";
    private static final String FAST = "outbound|80||qwen-fast.dns";
    private static final String SLOW = "outbound|80||qwen-slow.dns";
    private static final String SERVICES = "\"service_list\":[\"" + FAST + "\",\"" + SLOW + "\"]";

    private final VirtualClock clock = VirtualClock.startingAt(Instant.parse("2026-11-24T00:00:00Z"));

    @BeforeEach
    void emptyRedis() {
        PluginFixture.redis().flushAll();
    }

    private Gateway gateway(String config) {
        return PluginFixture.gateway(config).withClock(clock).build();
    }

    private static String clusterMetrics(String mode, String more) {
        return "{\"lb_type\":\"cluster\",\"lb_policy\":\"cluster_metrics\",\"lb_config\":{\"mode\":\"" + mode + "\","
                + SERVICES + (more.isEmpty() ? "" : "," + more) + "}}";
    }

    /** Request headers only: the decision is made there; the header is returned. */
    private static HttpStream ask(PluginVm vm, HeaderMap headers) {
        HttpStream stream = PluginFixture.stream(vm);
        stream.sendRequestHeaders(headers, false);
        stream.sendRequestBody(ShellFixture.chat("be brief", "hello"), true);
        return stream;
    }

    private static String chosen(HttpStream stream) {
        return stream.requestHeaders().get(HEADER).orElseThrow();
    }

    /** The response as the chosen cluster gives it: status, the first token after {@code ttft}, the end. */
    private void respond(Gateway gateway, HttpStream stream, int status, long ttftMillis, long restMillis) {
        stream.withClusterName(chosen(stream));
        gateway.advance(Duration.ofMillis(ttftMillis));
        stream.sendResponseHeaders(HeaderMap.of(":status", Integer.toString(status)), false);
        stream.sendResponseBody("data: {\"choices\":[]}\n\n", false);
        gateway.advance(Duration.ofMillis(restMillis));
        stream.sendResponseBody("data: [DONE]\n\n", true);
        stream.complete();
    }

    @Test
    void firstTokenLatencyMovesTrafficAwayFromASlowService() {
        Gateway gateway = gateway(clusterMetrics("LeastFirstTokenLatency", ""));
        PluginVm vm = gateway.startVm();
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < 60; i++) {
            HttpStream stream = ask(vm, PluginFixture.post());
            String service = chosen(stream);
            counts.merge(service, 1, Integer::sum);
            respond(gateway, stream, 200, service.equals(FAST) ? 40 : 400, 200);
        }
        assertTrue(counts.getOrDefault(SLOW, 0) <= 2, "measured once, then avoided: " + counts);
        assertTrue(
                vm.logs().stream().noneMatch(l -> l.message().contains("cluster header")),
                vm.logs().toString());
    }

    /** Each Envoy worker has its own VM; through the gateway's shared data a new one starts from what others measured. */
    @Test
    void aVmStartsFromWhatTheGatewaysOtherVmsMeasured() {
        Gateway gateway = gateway(clusterMetrics("LeastFirstTokenLatency", ""));
        PluginVm measured = gateway.startVm();
        PluginVm fresh = gateway.startVm();
        for (int i = 0; i < 20; i++) {
            HttpStream stream = ask(measured, PluginFixture.post());
            respond(gateway, stream, 200, chosen(stream).equals(FAST) ? 40 : 400, 100);
        }
        gateway.advance(Duration.ofMillis(2_000));
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < 20; i++) {
            HttpStream stream = ask(fresh, PluginFixture.post());
            counts.merge(chosen(stream), 1, Integer::sum);
            respond(gateway, stream, 200, chosen(stream).equals(FAST) ? 40 : 400, 100);
        }
        assertEquals(Map.of(FAST, 20), counts, "no request spent measuring the slow service again");
    }

    @Test
    void aFailingServiceIsCooledDownAndComesBack() {
        Gateway gateway = gateway(clusterMetrics("AdaptiveScore", "\"failure_cooldown_ms\":2000"));
        PluginVm vm = gateway.startVm();
        for (int i = 0; i < 20; i++) {
            respond(gateway, ask(vm, PluginFixture.post()), 200, 50, 100);
        }
        HttpStream failing = ask(vm, PluginFixture.post());
        String broken = chosen(failing);
        failing.withClusterName(broken);
        gateway.advance(Duration.ofMillis(20));
        failing.sendResponseHeaders(HeaderMap.of(":status", "503"), true);
        failing.complete();

        for (int i = 0; i < 10; i++) {
            HttpStream stream = ask(vm, PluginFixture.post());
            assertNotEquals(broken, chosen(stream), "cooling down");
            respond(gateway, stream, 200, 50, 100);
        }
        gateway.advance(Duration.ofMillis(2_000));
        Map<String, Integer> after = new HashMap<>();
        for (int i = 0; i < 20; i++) {
            HttpStream stream = ask(vm, PluginFixture.post());
            after.merge(chosen(stream), 1, Integer::sum);
            respond(gateway, stream, 200, 50, 100);
        }
        assertTrue(after.getOrDefault(broken, 0) >= 1, "probed and back after the cooldown: " + after);
    }

    @Test
    void hashWeightsHoldOverTenThousandConsumersWithinOnePoint() {
        String config = "{\"lb_type\":\"cluster\",\"lb_policy\":\"cluster_hash\",\"lb_config\":{\"clusters\":["
                + "{\"cluster\":\"" + FAST + "\",\"weight\":70},{\"cluster\":\"" + SLOW + "\",\"weight\":30}]}}";
        PluginVm vm = gateway(config).startVm();
        Map<String, Integer> counts = new HashMap<>();
        int consumers = 10_000;
        for (int i = 0; i < consumers; i++) {
            HttpStream stream = PluginFixture.stream(vm);
            stream.sendRequestHeaders(PluginFixture.get().add("x-mse-consumer", "consumer-" + i), true);
            counts.merge(chosen(stream), 1, Integer::sum);
            stream.complete();
        }
        assertEquals(70, 100.0 * counts.get(FAST) / consumers, 1.0, counts.toString());
        assertEquals(30, 100.0 * counts.get(SLOW) / consumers, 1.0, counts.toString());

        HttpStream anonymous = PluginFixture.stream(vm);
        anonymous.sendRequestHeaders(PluginFixture.get(), true);
        assertEquals(403, anonymous.localReply().orElseThrow().status());
    }

    @Test
    void globalInFlightCountsAreSharedByEveryVmAndReturnToZero() {
        Gateway gateway = gateway(
                clusterMetrics("AdaptiveScore", "\"global_inflight_enabled\":true," + ShellFixture.redisConfig("")));
        List<PluginVm> vms = List.of(gateway.startVm(), gateway.startVm());
        List<HttpStream> open = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            open.add(ask(vms.get(i % 2), PluginFixture.post()));
        }
        Map<String, Long> counts = PluginFixture.inflight();
        assertEquals(8, PluginFixture.totalInflight(), counts.toString());
        assertEquals(4, counts.get(FAST), "the two VMs see each other's requests: " + counts);
        assertEquals(4, counts.get(SLOW), counts.toString());

        for (int i = 0; i < open.size(); i++) {
            HttpStream stream = open.get(i);
            if (i % 3 == 0) {
                stream.reset();
            } else {
                respond(gateway, stream, 200, 30, 30);
            }
        }
        assertEquals(0, PluginFixture.totalInflight(), PluginFixture.inflight().toString());
    }

    @Test
    void aRouteThatIgnoresTheHeaderIsReportedOnce() {
        Gateway gateway = gateway(clusterMetrics("LeastBusy", ""));
        PluginVm vm = gateway.startVm();
        for (int i = 0; i < 3; i++) {
            HttpStream stream = ask(vm, PluginFixture.post());
            // The route kept its own cluster.
            stream.sendResponseHeaders(HeaderMap.of(":status", "200"), true);
            stream.complete();
        }
        assertEquals(3, gateway.metrics().value("ailb.cluster.header_ignored"));
        assertEquals(
                1,
                vm.logs().stream()
                        .filter(l -> l.message().contains("does not select its cluster by the header"))
                        .count(),
                vm.logs().toString());
    }
}
