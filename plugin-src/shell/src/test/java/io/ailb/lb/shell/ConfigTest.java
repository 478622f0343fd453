package io.ailb.lb.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.proxywasm.Log;
import io.ailb.proxywasm.testkit.FakeHost;
import io.ailb.proxywasm.testkit.RedisAnswer;
import io.ailb.proxywasm.testkit.RedisResponder;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A configuration the plugin cannot run is refused at configure time with one log line naming the field. */
class ConfigTest {

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"lb_policy\":\"fastest\"}" + "|lb_policy: unknown policy \"fastest\"",
                "{\"lb_policy\":\"global_least_request\",\"lb_config\":{\"serviceFQDN\":\"redis.static\",\"servicePort\":0}}"
                        + "|lb_config.servicePort=0:",
                "{\"lb_policy\":\"global_least_request\",\"lb_config\":{\"servicePort\":6379}}"
                        + "|lb_config.serviceFQDN: is required",
                "{\"_rules_\":[{\"_match_route_\":[\"r\"],\"lb_policy\":\"least_busy\",\"lb_config\":{\"metricsPath\":\"m\"}}]}"
                        + "|_rules_[0].lb_config.metricsPath=m: must start with /",
                "not json" + "|plugin config is not valid JSON"
            })
    void anInvalidConfigurationIsRefusedWithOneLineNamingTheField(String config, String expected) {
        FakeHost host = ShellFixture.host(config, RedisResponder.always(RedisAnswer.pending()));

        assertFalse(host.start(AiLoadBalancerPlugin::main));

        assertEquals(1, host.logs().size(), host.logs().toString());
        String line = host.logs(Log.Level.ERROR).get(0);
        assertTrue(line.startsWith("ai-load-balancer: invalid configuration, plugin not started: " + expected), line);
        assertEquals(List.of(), host.redisCallouts());
        assertEquals(0, host.callCount("proxy_redis_init"), "nothing was set up");
    }

    @Test
    void aValidConfigurationIsAcceptedAndSaysSo() {
        FakeHost host =
                ShellFixture.host(ShellFixture.GLOBAL_LEAST_REQUEST, RedisResponder.always(RedisAnswer.pending()));

        assertTrue(host.start(AiLoadBalancerPlugin::main));

        List<String> info = host.logs(Log.Level.INFO);
        assertEquals(2, info.size(), host.logs().toString());
        assertTrue(info.get(0).startsWith("ai-load-balancer: redis ready: "), info.get(0));
        assertEquals("ai-load-balancer: configured", info.get(1));
        assertEquals(List.of(), host.logs(Log.Level.WARN));
        assertEquals(List.of(), host.logs(Log.Level.ERROR));
        assertEquals(1, host.callCount("proxy_redis_init"));
    }

    @Test
    void unknownFieldsAndAnUnusedFallbackAreLoggedAsWarningsAndTheConfigurationStarts() {
        FakeHost host = ShellFixture.host(
                "{\"lb_polcy\":\"x\",\"lb_policy\":\"global_least_request\",\"fallback_policy\":\"least_busy\","
                        + "\"lb_config\":{" + ShellFixture.REDIS_CONFIG + ",\"ratelimit\":0.5}}",
                RedisResponder.always(RedisAnswer.pending()));

        assertTrue(host.start(AiLoadBalancerPlugin::main));

        List<String> warnings = host.logs(Log.Level.WARN);
        assertEquals(3, warnings.size(), host.logs().toString());
        assertEquals(
                "ai-load-balancer: configuration warning: lb_polcy: unknown field at the top level, ignored; "
                        + "closest known field: lb_policy",
                warnings.get(0));
        assertTrue(
                warnings.get(1)
                        .startsWith("ai-load-balancer: configuration warning: fallback_policy=least_busy: "
                                + "never used because fallback_on_error is not true"),
                warnings.get(1));
        assertEquals(
                "ai-load-balancer: configuration warning: lb_config.ratelimit: unknown field in lb_config of "
                        + "global_least_request and least_busy, ignored; closest known field: rate_limit",
                warnings.get(2));
        List<String> info = host.logs(Log.Level.INFO);
        assertEquals("ai-load-balancer: configured", info.get(info.size() - 1));
        assertEquals(List.of(), host.logs(Log.Level.ERROR));
    }

    @Test
    void aRefusedConfigurationLogsTheWarningThatLikelyExplainsItAfterTheRefusal() {
        FakeHost host = ShellFixture.host(
                "{\"lb_polcy\":\"prefix_cache\",\"lb_config\":{" + ShellFixture.REDIS_CONFIG + "}}",
                RedisResponder.always(RedisAnswer.pending()));

        assertFalse(host.start(AiLoadBalancerPlugin::main));

        assertEquals(
                List.of("ai-load-balancer: invalid configuration, plugin not started: lb_policy: is required"),
                host.logs(Log.Level.ERROR));
        assertEquals(
                List.of("ai-load-balancer: configuration warning: lb_polcy: unknown field at the top level, ignored; "
                        + "closest known field: lb_policy"),
                host.logs(Log.Level.WARN));
        assertEquals(0, host.callCount("proxy_redis_init"), "nothing was set up");
    }
}
