package io.ailb.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.HeaderMap;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.UpstreamHost;
import io.ailb.emulator.Vm;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One VM serves many requests: the guest heap must stay healthy however many requests a worker sees. */
@Timeout(600)
class VmLifetimeScenarioTest {
    private static final int REQUESTS = Integer.getInteger("soak.requests", 2000);

    @Test
    void oneVmServesThousandsOfLeastBusyRequests() {
        Vm vm = PluginFixture.gateway("{\"lb_policy\":\"least_busy\",\"lb_config\":{}}")
                .withUpstreamHosts(PluginFixture.CLUSTER, List.of(
                        new UpstreamHost(PluginFixture.A, "Healthy", metrics(5, 0.5)),
                        new UpstreamHost(PluginFixture.B, "Healthy", metrics(1, 0.1)),
                        new UpstreamHost(PluginFixture.C, "Healthy", metrics(3, 0.3))))
                .build().startVm();
        for (int i = 0; i < REQUESTS; i++) {
            HttpStream stream = PluginFixture.send(vm, PluginFixture.chat("system " + (i % 7), "turn " + i));
            assertEquals(PluginFixture.B, stream.upstreamOverride().orElse("none"),
                    "request " + i + "; VM alive=" + vm.isAlive() + "; logs " + vm.logs());
            stream.sendResponseHeaders(HeaderMap.of(":status", "200"), false);
            stream.sendResponseBody("{}", true);
            stream.complete();
        }
        assertTrue(vm.isAlive());
    }

    private static String metrics(int waiting, double cache) {
        return "vllm:num_requests_waiting " + waiting + "\nvllm:num_requests_running 2\nvllm:gpu_cache_usage_perc "
                + cache + "\n";
    }
}
