package io.ailb.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.ClusterHost;
import io.ailb.emulator.HeaderMap;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.PluginVm;
import io.ailb.emulator.bindings.LogLevel;
import io.ailb.lb.policy.PolicyRegistry;
import io.ailb.lb.redis.RedisTarget;
import io.ailb.lb.shell.ShellFixture;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One VM serves thousands of requests, as an Envoy worker does: the guest heap stays healthy (TeaVM's GC runs many
 * times) and bounded, and every Redis policy releases what it counted. {@code -Dsoak.requests=N} runs longer.
 */
@Timeout(600)
class VmLifetimeScenarioTest {
    private static final int REQUESTS = Integer.getInteger("soak.requests", 3000);

    @BeforeEach
    void emptyRedis() {
        PluginFixture.redis().command("FLUSHALL");
    }

    @Test
    void oneVmServesThousandsOfLeastBusyRequests() {
        PluginVm vm = PluginFixture.gateway("{\"lb_policy\":\"least_busy\",\"lb_config\":{}}")
                .withUpstreamHosts(
                        ShellFixture.CLUSTER,
                        List.of(
                                new ClusterHost(ShellFixture.A, "Healthy", metrics(5, 0.5)),
                                new ClusterHost(ShellFixture.B, "Healthy", metrics(1, 0.1)),
                                new ClusterHost(ShellFixture.C, "Healthy", metrics(3, 0.3))))
                .build()
                .startVm();

        long memoryAfterWarmUp = serve(vm, REQUESTS, ShellFixture.B);

        assertTrue(vm.isAlive());
        assertEquals(memoryAfterWarmUp, vm.memoryBytes(), "the heap grew after warm-up: a leak");
    }

    /** Every registered policy that reads a Redis service. */
    static Stream<String> redisPolicies() {
        return PolicyRegistry.names().stream()
                .filter(name -> PolicyRegistry.fields(name).contains(RedisTarget.SERVICE_FQDN));
    }

    @ParameterizedTest
    @MethodSource("redisPolicies")
    void oneVmServesThousandsOfRedisPolicyRequestsAndReleasesThemAll(String policy) {
        PluginVm vm = PluginFixture.gateway("{\"lb_policy\":\"" + policy + "\",\"lb_config\":{"
                        + ShellFixture.redisConfig("\"redisKeyTTL\":600") + "}}")
                .build()
                .startVm();

        long memoryAfterWarmUp = serve(vm, REQUESTS, null);

        assertTrue(vm.isAlive());
        assertEquals(0, PluginFixture.totalInflight(), "every finished request released its count");
        assertEquals(memoryAfterWarmUp, vm.memoryBytes(), "the heap grew after warm-up: a leak");
    }

    /**
     * Sends {@code requests} whole chats (150 conversations, growing turn by turn) and ends each response; every one
     * must get a backend ({@code expected}, when given). Returns the VM's memory after the first tenth.
     */
    private static long serve(PluginVm vm, int requests, String expected) {
        long memoryAfterWarmUp = 0;
        for (int i = 0; i < requests; i++) {
            int conversation = i % 150;
            String[] turns = new String[1 + 2 * (i / 150 % 5)];
            for (int t = 0; t < turns.length; t++) {
                turns[t] = "conversation " + conversation + " turn " + t + " " + "lorem ipsum ".repeat(20);
            }
            HttpStream stream = PluginFixture.send(vm, ShellFixture.chat("system prompt " + conversation % 7, turns));
            String chosen = stream.upstreamOverride().orElse("none");
            int request = i;
            assertTrue(
                    expected == null ? !chosen.equals("none") : chosen.equals(expected),
                    () -> "request " + request + " went to " + chosen + "; VM alive=" + vm.isAlive()
                            + vm.logs(LogLevel.ERROR));
            stream.sendResponseHeaders(HeaderMap.of(":status", "200"), false);
            stream.sendResponseBody("{\"choices\":[]}", true);
            stream.complete();
            if (i == requests / 10) {
                memoryAfterWarmUp = vm.memoryBytes();
            }
        }
        return memoryAfterWarmUp;
    }

    private static String metrics(int waiting, double cache) {
        return "vllm:num_requests_waiting " + waiting + "\nvllm:num_requests_running 2\nvllm:gpu_cache_usage_perc "
                + cache + "\n";
    }
}
