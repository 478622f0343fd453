package io.ailb.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.Gateway;
import io.ailb.emulator.HeaderMap;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.LocalRedis;
import io.ailb.emulator.PluginVm;
import io.ailb.lb.shell.ShellFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Whatever goes wrong, a request goes on — to the cluster's own load balancer if need be — and is never held. */
@Timeout(120)
class FailOpenScenarioTest {
    private static final String GLR = "{\"lb_policy\":\"global_least_request\",\"lb_config\":{"
            + ShellFixture.redisConfig("\"timeout\":300") + "}}";

    @Test
    void withRedisStoppedEveryRequestIsRoutedByTheClusterWithinTheTimeout() {
        try (LocalRedis own = LocalRedis.start()) {
            PluginVm vm = Gateway.builder(PluginFixture.plugin())
                    .withPluginConfig(GLR)
                    .withRedisCluster(ShellFixture.REDIS_CLUSTER, own.endpoint())
                    .withUpstreamHosts(
                            ShellFixture.CLUSTER,
                            java.util.List.of(io.ailb.emulator.ClusterHost.healthy(ShellFixture.A)))
                    .build()
                    .startVm();
            assertTrue(PluginFixture.send(vm, ShellFixture.chat("s", "up"))
                    .upstreamOverride()
                    .isPresent());
            own.stop();

            for (int i = 0; i < 5; i++) {
                long started = System.nanoTime();
                HttpStream stream = PluginFixture.send(vm, ShellFixture.chat("s", "down " + i));
                long millis = (System.nanoTime() - started) / 1_000_000;

                assertTrue(stream.requestHeadersForwarded(), "request " + i + " went on");
                assertFalse(stream.upstreamOverride().isPresent(), "the cluster's load balancer decided");
                assertTrue(millis < 300 + 2_000, "decided in " + millis + " ms");
                stream.complete();
            }
            assertTrue(vm.gateway().metrics().value("ailb.fallback.redis_error") >= 5);
        }
    }

    @Test
    void aBinaryBodyIsNotBufferedAndStillRouted() {
        String config = "{\"lb_policy\":\"prefix_cache\",\"lb_config\":{" + ShellFixture.redisConfig("") + "}}";
        PluginVm vm = PluginFixture.gateway(config).build().startVm();
        HttpStream stream = PluginFixture.stream(vm);

        stream.sendRequestHeaders(
                HeaderMap.of(
                        ":method",
                        "POST",
                        ":path",
                        "/v1/audio",
                        ":authority",
                        "x",
                        "content-type",
                        "application/octet-stream"),
                false);

        assertTrue(stream.requestHeadersForwarded(), "decided at the headers; the body streams through");
        assertTrue(stream.upstreamOverride().isPresent());
        stream.sendRequestBody(new byte[] {1, 2, 3}, true);
        assertEquals(3, stream.forwardedRequestBody().length);
    }

    @Test
    void aBodyThatIsNotJsonStillGetsAnUpstream() {
        String config = "{\"lb_policy\":\"prefix_cache\",\"lb_config\":{" + ShellFixture.redisConfig("") + "}}";
        PluginVm vm = PluginFixture.gateway(config).build().startVm();

        HttpStream stream = PluginFixture.send(vm, "{not json");

        assertTrue(stream.requestHeadersForwarded());
        assertTrue(stream.upstreamOverride().isPresent(), "least request decides without a prefix");
    }

    @Test
    void aRouteNoRuleMatchesIsLeftAlone() {
        String config = "{\"_rules_\":[{\"_match_route_\":[\"other-route\"],\"lb_policy\":\"least_busy\"}]}";
        PluginVm vm = PluginFixture.gateway(config).build().startVm();

        HttpStream stream = PluginFixture.stream(vm);
        assertEquals(0, stream.sendRequestHeaders(PluginFixture.post(), false), "Continue: not held");
        assertFalse(stream.upstreamOverride().isPresent());
    }

    @Test
    void aNewConfigurationReplacesTheOldOneWithoutRestartingTheVm() {
        Gateway gateway = PluginFixture.gateway(
                        "{\"_rules_\":[{\"_match_route_\":[\"other-route\"],\"lb_policy\":\"least_busy\"}]}")
                .build();
        PluginVm vm = gateway.startVm();
        assertFalse(PluginFixture.send(vm, ShellFixture.chat("s", "a"))
                .upstreamOverride()
                .isPresent());

        assertTrue(gateway.reconfigure(GLR));

        assertTrue(PluginFixture.send(vm, ShellFixture.chat("s", "b"))
                .upstreamOverride()
                .isPresent());
    }
}
