package io.ailb.scenarios;

import static io.ailb.lb.shell.ShellFixture.A;
import static io.ailb.lb.shell.ShellFixture.B;
import static io.ailb.lb.shell.ShellFixture.C;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.resp.RespValue;
import io.ailb.emulator.ClusterHost;
import io.ailb.emulator.Gateway;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.LocalRedis;
import io.ailb.emulator.PluginVm;
import io.ailb.emulator.RecordedRedisCall;
import io.ailb.lb.shell.ShellFixture;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Redis stopped and restarted (empty) in the middle of a run, for every Redis policy: while it is down every request is
 * routed by the cluster's load balancer at once; after the restart requests are routed by Redis again, the scripts
 * re-sent once, and no count goes below 0 or stays behind — including the releases of requests decided before the
 * outage or during it, which reach the new, empty Redis.
 */
@Timeout(120)
class RedisOutageScenarioTest {

    static List<String> redisPolicies() {
        return RedisFaultScenarioTest.redisPolicies();
    }

    @ParameterizedTest
    @MethodSource("redisPolicies")
    void redisStoppedAndRestartedMidRun(String policy) {
        try (LocalRedis own = LocalRedis.start()) {
            Assumptions.assumeTrue(own.isEmbedded(), "a REDIS_URL server cannot be stopped by the test");
            Gateway gateway = Gateway.builder(PluginFixture.plugin())
                    .withPluginConfig("{\"lb_policy\":\"" + policy + "\",\"lb_config\":{"
                            + ShellFixture.redisConfig("\"timeout\":" + RedisFaultScenarioTest.TIMEOUT_MILLIS) + "}}")
                    .withRedisCluster(ShellFixture.REDIS_CLUSTER, own.endpoint())
                    .withUpstreamHosts(
                            ShellFixture.CLUSTER,
                            List.of(ClusterHost.healthy(A), ClusterHost.healthy(B), ClusterHost.healthy(C)))
                    .build();
            PluginVm vm = gateway.startVm();
            List<HttpStream> beforeOutage = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                beforeOutage.add(PluginFixture.send(vm, ShellFixture.chat("s", "before " + i)));
                assertTrue(beforeOutage.get(i).upstreamOverride().isPresent());
            }
            assertEquals(3L, total(own));

            own.stop();
            List<HttpStream> duringOutage = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                HttpStream stream = PluginFixture.send(vm, ShellFixture.chat("s", "down " + i));
                RedisFaultScenarioTest.assertLeftToTheCluster(stream);
                duringOutage.add(stream);
            }
            beforeOutage.get(0).complete(); // its release is lost with the server
            assertEquals(3L, gateway.metrics().value("ailb.fallback.redis_error"));

            own.restart();
            int callsBefore = vm.redisCalls().size();
            HttpStream afterRestart = PluginFixture.send(vm, ShellFixture.chat("s", "back"));

            assertTrue(afterRestart.upstreamOverride().isPresent(), "routed by Redis again");
            assertTrue(
                    vm.redisCalls().subList(callsBefore, vm.redisCalls().size()).stream()
                            .map(RecordedRedisCall::commandText)
                            .anyMatch(command -> command.startsWith("EVAL ")),
                    "the empty Redis got the script again");
            assertEquals(1L, total(own));
            beforeOutage.subList(1, 3).forEach(HttpStream::complete);
            duringOutage.forEach(HttpStream::complete);
            assertTrue(counts(own).stream().allMatch(count -> count >= 0), "no count below 0: " + counts(own));
            afterRestart.complete();
            assertEquals(0L, total(own), "counts healed: " + counts(own));
        }
    }

    private static long total(LocalRedis redis) {
        return counts(redis).stream().mapToLong(Long::longValue).sum();
    }

    /** Every per-host in-flight count of every route in {@code redis}. */
    private static List<Long> counts(LocalRedis redis) {
        List<Long> counts = new ArrayList<>();
        for (RespValue key : redis.command("KEYS", "*inflight").elements()) {
            List<RespValue> pairs = redis.command("HGETALL", key.asString()).elements();
            for (int i = 1; i < pairs.size(); i += 2) {
                counts.add(pairs.get(i).asLong());
            }
        }
        return counts;
    }
}
