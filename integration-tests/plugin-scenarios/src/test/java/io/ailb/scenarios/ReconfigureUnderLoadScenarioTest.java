package io.ailb.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.Gateway;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.PluginVm;
import io.ailb.emulator.RedisFault;
import io.ailb.emulator.VirtualClock;
import io.ailb.lb.shell.ShellFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The plugin reconfigured while requests are in flight, as Envoy does it (a new root context on every VM): requests
 * decided or waiting for Redis under the old configuration finish on it, new ones use the new one, and every count of
 * both comes back.
 */
@Timeout(120)
class ReconfigureUnderLoadScenarioTest {
    private static final String OLD = config("global_least_request");
    private static final String NEW = config("prefix_cache");

    @BeforeEach
    void emptyRedis() {
        PluginFixture.redis().flushAll();
    }

    private static String config(String policy) {
        return "{\"lb_policy\":\"" + policy + "\",\"lb_config\":{" + ShellFixture.redisConfig("") + "}}";
    }

    private static String policyOf(HttpStream stream) {
        String log = stream.property("ai_log").orElseThrow(() -> new AssertionError("no ai_log"));
        return log.contains("\"lb_policy\":\"global_least_request\"") ? "old" : "new";
    }

    @Test
    void requestsInFlightFinishOnTheOldConfigurationAndNewOnesUseTheNew() {
        Gateway gateway = PluginFixture.gateway(OLD)
                .withClock(VirtualClock.startingAt(Instant.EPOCH))
                .build();
        List<PluginVm> vms = gateway.start(2);
        List<HttpStream> routedOld = new ArrayList<>();
        List<HttpStream> waitingOld = new ArrayList<>();
        for (PluginVm vm : vms) {
            routedOld.add(PluginFixture.send(vm, ShellFixture.chat("s", "routed before")));
            gateway.redisFaults().once(RedisFault.delay(Duration.ofMillis(50)));
            waitingOld.add(PluginFixture.send(vm, ShellFixture.chat("s", "waiting for redis")));
        }
        waitingOld.forEach(stream -> assertFalse(stream.requestHeadersForwarded()));

        assertTrue(gateway.reconfigure(NEW));
        List<HttpStream> newOnes = new ArrayList<>();
        for (PluginVm vm : vms) {
            newOnes.add(PluginFixture.send(vm, ShellFixture.chat("s", "after the change")));
        }
        gateway.advance(Duration.ofMillis(50));

        for (HttpStream stream : routedOld) {
            assertEquals("old", policyOf(stream));
        }
        for (HttpStream stream : waitingOld) {
            assertTrue(stream.upstreamOverride().isPresent(), "the late reply still routed it");
            assertEquals("old", policyOf(stream), "decided by the configuration it started under");
        }
        for (HttpStream stream : newOnes) {
            assertTrue(stream.upstreamOverride().isPresent());
            assertEquals("new", policyOf(stream));
        }
        assertEquals(4L, gateway.metrics().value("ailb.routed.global_least_request"));
        assertEquals(2L, gateway.metrics().value("ailb.routed.prefix_cache"));
        assertEquals(6L, PluginFixture.totalInflight());

        routedOld.forEach(HttpStream::complete);
        waitingOld.forEach(HttpStream::complete);
        newOnes.forEach(HttpStream::complete);
        assertEquals(0L, PluginFixture.totalInflight(), PluginFixture.inflight().toString());
        vms.forEach(vm -> assertTrue(vm.isAlive()));
    }
}
