package io.ailb.scenarios;

import static io.ailb.lb.shell.ShellFixture.A;
import static io.ailb.lb.shell.ShellFixture.B;
import static io.ailb.lb.shell.ShellFixture.C;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.ClusterHost;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.PluginVm;
import io.ailb.lb.shell.ShellFixture;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** prefix_cache through the real .wasm and a real Redis. */
@Timeout(120)
class PrefixCacheScenarioTest {
    private static final String CONFIG =
            "{\"lb_policy\":\"prefix_cache\",\"lb_config\":{" + ShellFixture.redisConfig("\"redisKeyTTL\":600") + "}}";

    @BeforeEach
    void emptyRedis() {
        PluginFixture.redis().flushAll();
    }

    private static String finish(HttpStream stream) {
        String host = stream.upstreamOverride().orElseThrow();
        stream.complete();
        return host;
    }

    @Test
    void theNextTurnOfEveryConversationLandsWhereItsPreviousTurnWent() {
        PluginVm vm = PluginFixture.gateway(CONFIG).build().startVm();
        List<String> firstHosts = new ArrayList<>();
        for (int c = 0; c < 6; c++) {
            firstHosts.add(finish(PluginFixture.send(vm, ShellFixture.chat("system " + c, "question " + c))));
        }
        for (int c = 0; c < 6; c++) {
            HttpStream second = PluginFixture.send(
                    vm, ShellFixture.chat("system " + c, "question " + c, "answer " + c, "follow-up " + c));
            String log = second.property("ai_log").orElseThrow();
            assertEquals(firstHosts.get(c), finish(second), "conversation " + c);
            assertTrue(log.contains("\"cache_hit\":\"true\""), log);
            assertTrue(log.contains("\"prefix_length\":\"1\""), log);
        }
        assertTrue(firstHosts.containsAll(List.of(A, B, C)), "new conversations still spread: " + firstHosts);
        assertEquals(0L, PluginFixture.totalInflight());
    }

    @Test
    void anUnhealthyHolderIsSkippedAndThePathRewrittenToTheNewHost() {
        PluginVm vm = PluginFixture.gateway(CONFIG).build().startVm();
        String first = finish(PluginFixture.send(vm, ShellFixture.chat("sys", "q1")));

        List<ClusterHost> holderDown = new ArrayList<>();
        for (String host : List.of(A, B, C)) {
            holderDown.add(host.equals(first) ? new ClusterHost(host, "Unhealthy", "") : ClusterHost.healthy(host));
        }
        HttpStream second = PluginFixture.stream(vm).withUpstreamHosts(holderDown);
        second.sendRequestHeaders(PluginFixture.post(), false);
        second.sendRequestBody(ShellFixture.chat("sys", "q1", "a1", "q2"), true);
        String moved = finish(second);
        assertNotEquals(first, moved);

        String third = finish(PluginFixture.send(vm, ShellFixture.chat("sys", "q1", "a1", "q2", "a2", "q3")));
        assertEquals(moved, third, "the whole conversation now points at the new holder");
    }

    @Test
    void prefixKeysOfDifferentRoutesNeverCollide() {
        PluginVm vm = PluginFixture.gateway(CONFIG).build().startVm();
        finish(PluginFixture.send(vm, ShellFixture.chat("same", "same")));
        HttpStream other = vm.newHttpStream().withRouteName("another-route").withClusterName(ShellFixture.CLUSTER);
        other.sendRequestHeaders(PluginFixture.post(), false);
        other.sendRequestBody(ShellFixture.chat("same", "same"), true);
        other.complete();

        List<String> prefixKeys = PluginFixture.keys("*:p:*");
        assertEquals(2, prefixKeys.size(), prefixKeys.toString());
        for (String key : prefixKeys) {
            assertTrue(PluginFixture.redis().command("TTL", key).asLong() > 0, key + " has a TTL");
        }
    }

    @Test
    void aBodylessRequestIsRoutedByLeastRequestAtOnce() {
        PluginVm vm = PluginFixture.gateway(CONFIG).build().startVm();
        HttpStream stream = PluginFixture.stream(vm);

        stream.sendRequestHeaders(PluginFixture.get(), true);

        assertTrue(stream.requestHeadersForwarded());
        assertTrue(stream.upstreamOverride().isPresent());
    }
}
