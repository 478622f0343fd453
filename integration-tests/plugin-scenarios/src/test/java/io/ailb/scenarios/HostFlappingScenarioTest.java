package io.ailb.scenarios;

import static io.ailb.lb.shell.ShellFixture.A;
import static io.ailb.lb.shell.ShellFixture.B;
import static io.ailb.lb.shell.ShellFixture.C;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.ClusterHost;
import io.ailb.emulator.Gateway;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.PluginVm;
import io.ailb.lb.shell.ShellFixture;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hosts flapping between healthy and unhealthy while requests are in flight ({@link Gateway#setUpstreamHosts}): no
 * request is routed to a host the gateway listed as unhealthy at its decision, every request is routed, and every
 * count comes back — also for hosts that turned unhealthy while they served.
 */
@Timeout(120)
class HostFlappingScenarioTest {
    private static final String IDLE = "vllm:num_requests_waiting 0\nvllm:gpu_cache_usage_perc 0.1\n";
    private static final List<String> HOSTS = List.of(A, B, C);

    @BeforeEach
    void emptyRedis() {
        PluginFixture.redis().flushAll();
    }

    static Stream<String> policies() {
        return Stream.concat(Stream.of("least_busy"), VmLifetimeScenarioTest.redisPolicies());
    }

    @ParameterizedTest
    @MethodSource("policies")
    void noRequestGoesToAHostThatWasUnhealthyAtItsDecision(String policy) {
        String lbConfig = policy.equals("least_busy") ? "" : ShellFixture.redisConfig("");
        Gateway gateway = PluginFixture.gateway("{\"lb_policy\":\"" + policy + "\",\"lb_config\":{" + lbConfig + "}}")
                .build();
        PluginVm vm = gateway.startVm();
        Deque<HttpStream> open = new ArrayDeque<>();
        Set<String> chosen = new TreeSet<>();

        for (int i = 0; i < 60; i++) {
            List<ClusterHost> hosts = flapped(i);
            gateway.setUpstreamHosts(ShellFixture.CLUSTER, hosts);
            HttpStream stream = PluginFixture.send(vm, ShellFixture.chat("s" + i % 4, "turn " + i));
            String host = stream.upstreamOverride().orElseThrow(() -> new AssertionError("not routed"));
            int request = i;
            assertTrue(
                    hosts.stream()
                            .anyMatch(h ->
                                    h.address().equals(host) && h.healthStatus().equals("Healthy")),
                    () -> "request " + request + " went to " + host + ", unhealthy in " + hosts);
            chosen.add(host);
            open.add(stream);
            if (open.size() > 4) {
                open.poll().complete();
            }
        }
        open.forEach(HttpStream::complete);

        assertEquals(new TreeSet<>(HOSTS), chosen, "each host served while it was up");
        assertEquals(0L, PluginFixture.totalInflight(), PluginFixture.inflight().toString());
        assertTrue(vm.isAlive());
    }

    /** Request i's view: A flaps every request, B every third, C every fifth; never all three down. */
    private static List<ClusterHost> flapped(int i) {
        boolean[] up = {i % 2 == 0, i % 3 != 1, i % 5 != 2};
        if (!up[0] && !up[1] && !up[2]) {
            up[2] = true;
        }
        List<ClusterHost> hosts = new ArrayList<>();
        for (int h = 0; h < HOSTS.size(); h++) {
            hosts.add(new ClusterHost(HOSTS.get(h), up[h] ? "Healthy" : "Unhealthy", IDLE));
        }
        return hosts;
    }
}
