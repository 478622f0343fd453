package io.ailb.scenarios;

import static io.ailb.lb.shell.ShellFixture.A;
import static io.ailb.lb.shell.ShellFixture.B;
import static io.ailb.lb.shell.ShellFixture.C;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.ClusterHost;
import io.ailb.emulator.Gateway;
import io.ailb.emulator.HttpCallAnswer;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.PluginVm;
import io.ailb.lb.shell.ShellFixture;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** least_busy / endpoint_metrics through the real .wasm: metrics from Higress's host info, or scraped. */
@Timeout(120)
class EndpointMetricsScenarioTest {
    private static final String BUSY =
            "vllm:num_requests_waiting 9\nvllm:num_requests_running 9\nvllm:gpu_cache_usage_perc 0.9\n";
    private static final String IDLE =
            "vllm:num_requests_waiting 0\nvllm:num_requests_running 1\nvllm:gpu_cache_usage_perc 0.1\n";
    private static final String MEDIUM =
            "# TYPE sglang:num_queue_reqs gauge\nsglang:num_queue_reqs{model_name=\"q\"} 3\n"
                    + "sglang:num_running_reqs{model_name=\"q\"} 4\nsglang:token_usage{model_name=\"q\"} 0.5\n";

    private static PluginVm vmWithMetricsInHostInfo(String config) {
        return PluginFixture.gateway(config)
                .withUpstreamHosts(
                        ShellFixture.CLUSTER,
                        List.of(
                                new ClusterHost(A, "Healthy", BUSY),
                                new ClusterHost(B, "Healthy", IDLE),
                                new ClusterHost(C, "Healthy", MEDIUM)))
                .build()
                .startVm();
    }

    @Test
    void theDefaultPolicyPicksTheBackendWithTheShortestQueueAndFreestCache() {
        PluginVm vm = vmWithMetricsInHostInfo("{\"lb_policy\":\"least_busy\",\"lb_config\":{}}");

        HttpStream stream = PluginFixture.send(vm, ShellFixture.chat("s", "hello"));

        assertEquals(B, stream.upstreamOverride().orElseThrow());
        assertTrue(stream.requestHeadersForwarded());
        assertTrue(vm.redisCalls().isEmpty(), "metrics policies need no Redis");
    }

    @Test
    void leastOnATargetMetricReadsThatMetricOnly() {
        PluginVm vm = vmWithMetricsInHostInfo("{\"lb_policy\":\"endpoint_metrics\",\"lb_config\":"
                + "{\"metric_policy\":\"most\",\"target_metric\":\"vllm:num_requests_waiting\"}}");

        HttpStream stream = PluginFixture.send(vm, ShellFixture.chat("s", "hello"));

        assertEquals(A, stream.upstreamOverride().orElseThrow(), "most waiting: the odd choice proves the metric");
    }

    @Test
    void metricsAreScrapedOnTickWhenTheHostInfoHasNone() {
        Map<String, String> byHost = Map.of(A, BUSY, B, IDLE, C, MEDIUM);
        Gateway gateway = PluginFixture.gateway("{\"lb_policy\":\"least_busy\",\"lb_config\":"
                        + "{\"metricsPath\":\"/metrics\",\"metricsRefreshInterval\":1000}}")
                .withHttpDispatcher(call -> {
                    String host = call.headers().get(":authority").orElse("");
                    return byHost.containsKey(host)
                                    && "/metrics"
                                            .equals(call.headers().get(":path").orElse(""))
                            ? HttpCallAnswer.status(200).withBody(byHost.get(host))
                            : HttpCallAnswer.status(404);
                })
                .build();
        PluginVm vm = gateway.startVm();

        HttpStream before = PluginFixture.send(vm, ShellFixture.chat("s", "first"));
        assertFalse(before.upstreamOverride().isPresent(), "nothing known yet: the cluster decides");
        assertTrue(before.requestHeadersForwarded());

        assertTrue(vm.tick(), "the plugin asked for ticks");
        HttpStream after = PluginFixture.send(vm, ShellFixture.chat("s", "second"));

        assertEquals(B, after.upstreamOverride().orElseThrow());
    }

    @Test
    void aRequestWithNoBodyIsDecidedAtOnce() {
        PluginVm vm = vmWithMetricsInHostInfo("{\"lb_policy\":\"least_busy\",\"lb_config\":{}}");
        HttpStream stream = PluginFixture.stream(vm);

        stream.sendRequestHeaders(PluginFixture.get(), true);

        assertTrue(stream.requestHeadersForwarded());
        assertEquals(B, stream.upstreamOverride().orElseThrow());
    }
}
