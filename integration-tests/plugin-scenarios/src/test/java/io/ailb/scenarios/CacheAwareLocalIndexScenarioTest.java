package io.ailb.scenarios;

import static io.ailb.lb.shell.ShellFixture.A;
import static io.ailb.lb.shell.ShellFixture.B;
import static io.ailb.lb.shell.ShellFixture.C;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.ClusterHost;
import io.ailb.emulator.Gateway;
import io.ailb.emulator.HeaderMap;
import io.ailb.emulator.HttpCallAnswer;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.PluginVm;
import io.ailb.emulator.VirtualClock;
import io.ailb.lb.shell.ShellFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * cache_aware with {@code index: local} through the real .wasm, on a gateway with no Redis at all: decisions are made
 * in the VM at once, follow-ups find their first turn's host, and every routed request's count and queued prefill are
 * given back whichever way its stream ends. The in-flight term is 30 tokens per request, the weight 1 and the recent
 * work term off (it fades in seconds, where a count or queue left behind stays), so a bodyless request's cost is its
 * host's queue plus 30 per request in flight there.
 */
@Timeout(120)
class CacheAwareLocalIndexScenarioTest {
    private static final String CONFIG = "{\"lb_policy\":\"cache_aware\",\"lb_config\":"
            + "{\"index\":\"local\",\"inflightTokens\":30,\"overloadQueueRequests\":0,\"recentWorkShare\":0}}";

    private static PluginVm vmWithoutRedis() {
        return gatewayWithoutRedis().startVm();
    }

    private static Gateway gatewayWithoutRedis() {
        return Gateway.builder(PluginFixture.plugin())
                .withPluginConfig(CONFIG)
                .withClock(VirtualClock.startingAt(Instant.parse("2026-11-24T00:00:00Z")))
                .withUpstreamHosts(
                        ShellFixture.CLUSTER,
                        List.of(ClusterHost.healthy(A), ClusterHost.healthy(B), ClusterHost.healthy(C)))
                .build();
    }

    /** The three hosts, all but {@code healthy} marked unhealthy. */
    private static List<ClusterHost> onlyHealthy(String healthy) {
        List<ClusterHost> hosts = new ArrayList<>();
        for (String host : List.of(A, B, C)) {
            hosts.add(host.equals(healthy) ? ClusterHost.healthy(host) : new ClusterHost(host, "Unhealthy", ""));
        }
        return hosts;
    }

    private static HttpStream bodyless(PluginVm vm) {
        HttpStream stream = PluginFixture.stream(vm);
        stream.sendRequestHeaders(PluginFixture.get(), true);
        assertTrue(stream.requestHeadersForwarded(), "decided at the headers");
        return stream;
    }

    /**
     * Three bodyless requests held open: on an idle service they take one host each at cost 0 and count 1; anything
     * left behind by earlier streams (a count, queued tokens) would make one of them pay for it.
     */
    private static void assertIdle(PluginVm vm) {
        Set<String> hosts = new HashSet<>();
        List<HttpStream> open = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            HttpStream stream = bodyless(vm);
            String log = PluginFixture.log(stream);
            assertTrue(log.contains("\"cost\":\"0\""), log);
            assertTrue(log.contains("\"inflight_count\":\"1\""), log);
            hosts.add(stream.upstreamOverride().orElseThrow());
            open.add(stream);
        }
        assertEquals(Set.of(A, B, C), hosts);
        open.forEach(HttpStream::complete);
    }

    @Test
    void aFollowUpGoesToTheHostOfItsFirstTurnWithoutAnyRedis() {
        PluginVm vm = vmWithoutRedis();
        for (int c = 0; c < 4; c++) {
            String system = PluginFixture.text("system" + c, 2000);
            HttpStream first = PluginFixture.send(vm, ShellFixture.chat(system, "question " + c));
            assertTrue(first.requestHeadersForwarded(), "decided without waiting for Redis");
            String home = first.upstreamOverride().orElseThrow();
            first.sendResponseHeaders(HeaderMap.of(":status", "200"), false);
            first.sendResponseBody("{\"choices\":[]}", true);
            first.complete();

            HttpStream next = PluginFixture.send(vm, ShellFixture.chat(system, "question " + c, "answer", "more"));
            String log = PluginFixture.log(next);
            assertEquals(home, next.upstreamOverride().orElseThrow(), log);
            assertTrue(log.contains("\"cache_hit\":\"true\""), log);
            next.complete();
        }
        assertTrue(vm.redisCalls().isEmpty(), vm.redisCalls().toString());
        assertIdle(vm);
        assertTrue(vm.isAlive());
    }

    /**
     * Two workers of one gateway: a follow-up sent to the second VM finds the host the first VM chose for its first
     * turn once a tick has exchanged their indexes through the gateway's shared data.
     */
    @Test
    void aFollowUpOnAnotherWorkerGoesToTheHostOfItsFirstTurnAfterATick() {
        Gateway gateway = gatewayWithoutRedis();
        PluginVm first = gateway.startVm();
        PluginVm second = gateway.startVm();
        assertEquals(250, first.tickPeriodMillis());
        for (int c = 0; c < 4; c++) {
            String system = PluginFixture.text("system" + c, 2000);
            HttpStream opening = PluginFixture.send(first, ShellFixture.chat(system, "question " + c));
            String home = opening.upstreamOverride().orElseThrow();
            opening.sendResponseHeaders(HeaderMap.of(":status", "200"), false);
            opening.sendResponseBody("{\"choices\":[]}", true);
            opening.complete();
            gateway.advance(Duration.ofMillis(300));

            HttpStream next = PluginFixture.send(second, ShellFixture.chat(system, "question " + c, "answer", "more"));
            String log = PluginFixture.log(next);
            assertEquals(home, next.upstreamOverride().orElseThrow(), log);
            assertTrue(log.contains("\"cache_hit\":\"true\""), log);
            next.complete();
        }
        assertTrue(first.redisCalls().isEmpty() && second.redisCalls().isEmpty());
        assertTrue(first.isAlive() && second.isAlive());
    }

    /** A bodyless request on {@code vm}, {@code host} its only choice, counts the other worker's held document there. */
    private static HttpStream seesTheHeldDocument(PluginVm vm, String host) {
        HttpStream next = PluginFixture.stream(vm).withUpstreamHosts(onlyHealthy(host));
        next.sendRequestHeaders(PluginFixture.get(), true);
        assertTrue(PluginFixture.log(next).contains("\"inflight_count\":\"2\""), PluginFixture.log(next));
        assertTrue(
                PluginFixture.log(next).contains("\"cost\":\"2033\""),
                "2003 queued + 30 for the one in flight: " + PluginFixture.log(next));
        return next;
    }

    /** A request held open on one worker counts, with its queued prefill, in the other worker's decisions. */
    @Test
    void anotherWorkersRequestInFlightCountsAfterATick() {
        Gateway gateway = gatewayWithoutRedis();
        PluginVm first = gateway.startVm();
        PluginVm second = gateway.startVm();
        HttpStream held =
                PluginFixture.send(first, ShellFixture.chat(PluginFixture.text("document", 8000), "summarise"));
        String host = held.upstreamOverride().orElseThrow();
        assertTrue(PluginFixture.log(held).contains("\"work\":\"2003\""), PluginFixture.log(held));
        gateway.advance(Duration.ofMillis(300));

        seesTheHeldDocument(second, host).complete();
        held.complete();
        gateway.advance(Duration.ofMillis(300));
        assertIdle(second);
    }

    /**
     * Once the workers know each other (two ticks), a request routed on one counts in the other's next decision at
     * once, between ticks: its count goes to shared data when the route takes effect, and its end as it ends.
     */
    @Test
    void anotherWorkersRequestCountsInTheNextDecisionWithoutATick() {
        Gateway gateway = gatewayWithoutRedis();
        PluginVm first = gateway.startVm();
        PluginVm second = gateway.startVm();
        gateway.advance(Duration.ofMillis(600));

        HttpStream held =
                PluginFixture.send(first, ShellFixture.chat(PluginFixture.text("document", 8000), "summarise"));
        String host = held.upstreamOverride().orElseThrow();
        seesTheHeldDocument(second, host).complete();
        held.complete();

        HttpStream after = PluginFixture.stream(second).withUpstreamHosts(onlyHealthy(host));
        after.sendRequestHeaders(PluginFixture.get(), true);
        assertTrue(PluginFixture.log(after).contains("\"cost\":\"0\""), "its end too: " + PluginFixture.log(after));
        after.complete();
        assertTrue(first.isAlive() && second.isAlive());
    }

    @Test
    void aResetOrABodylessResponseStillGivesBackItsCountAndItsQueuedPrefill() {
        PluginVm vm = vmWithoutRedis();
        HttpStream reset = PluginFixture.send(vm, ShellFixture.chat(PluginFixture.text("document", 8000), "summarise"));
        assertTrue(PluginFixture.log(reset).contains("\"work\":\"2003\""), PluginFixture.log(reset));
        // While it waits for its first token, a bodyless request goes elsewhere.
        HttpStream other = bodyless(vm);
        assertNotEquals(
                reset.upstreamOverride().orElseThrow(), other.upstreamOverride().orElseThrow());
        other.complete();
        reset.reset();
        assertIdle(vm);

        HttpStream refused = PluginFixture.send(vm, ShellFixture.chat(PluginFixture.text("report", 8000), "summarise"));
        refused.sendResponseHeaders(HeaderMap.of(":status", "503"), true);
        refused.complete();
        assertIdle(vm);
        assertTrue(vm.isAlive());
    }

    /**
     * An instance reporting a KV cache of 3,200 tokens (vLLM's cache_config_info in its host info metrics) has lost a
     * 2,000-token document once two more such prompts were prefilled there; one that does not report its size keeps
     * it until the key TTL.
     */
    @Test
    void aDocumentCountsAsEvictedFromAnInstanceWhoseReportedKvCacheWasRefilledSince() {
        String small = "vllm:num_requests_running 0\n"
                + "vllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"200\",model_name=\"m\"} 1.0\n";
        assertEquals("\"cache_hit\":\"false\"", lastTurnHit(new ClusterHost(A, "Healthy", small)));
        assertEquals("\"cache_hit\":\"true\"", lastTurnHit(ClusterHost.healthy(A)));
    }

    /** The same instance without metrics in its host info: the plugin scrapes its /metrics page on a tick. */
    @Test
    void anInstanceWithoutMetricsInItsHostInfoIsScrapedForItsKvCacheSize() {
        String page = "vllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"200\",model_name=\"m\"} 1.0\n";
        List<String> paths = new ArrayList<>();
        PluginVm vm = Gateway.builder(PluginFixture.plugin())
                .withPluginConfig(CONFIG)
                .withClock(VirtualClock.startingAt(Instant.parse("2026-11-24T00:00:00Z")))
                .withUpstreamHosts(ShellFixture.CLUSTER, List.of(ClusterHost.healthy(A)))
                .withHttpDispatcher(call -> {
                    paths.add(call.headers().get(":authority").orElse("")
                            + call.headers().get(":path").orElse(""));
                    return HttpCallAnswer.status(200).withBody(page);
                })
                .build()
                .startVm();
        PluginFixture.send(vm, ShellFixture.chat("warm-up", "hello")).complete();
        assertTrue(vm.tick(), "the plugin asked for ticks");
        assertEquals(List.of(A + "/metrics"), paths);
        assertEquals("\"cache_hit\":\"false\"", lastTurnHit(vm));
    }

    /** The cache_hit log field of a document's second question after two other documents went to its only host. */
    private static String lastTurnHit(ClusterHost only) {
        return lastTurnHit(Gateway.builder(PluginFixture.plugin())
                .withPluginConfig(CONFIG)
                .withClock(VirtualClock.startingAt(Instant.parse("2026-11-24T00:00:00Z")))
                .withUpstreamHosts(ShellFixture.CLUSTER, List.of(only))
                .build()
                .startVm());
    }

    private static String lastTurnHit(PluginVm vm) {
        String log = "";
        for (String document : List.of("report", "memo", "letter", "report")) {
            HttpStream stream =
                    PluginFixture.send(vm, ShellFixture.chat(PluginFixture.text(document, 8000), "summarise"));
            log = PluginFixture.log(stream);
            stream.sendResponseHeaders(HeaderMap.of(":status", "200"), false);
            stream.sendResponseBody("{\"choices\":[]}", true);
            stream.complete();
        }
        assertTrue(vm.isAlive());
        int at = log.indexOf("\"cache_hit\"");
        return log.substring(at, log.indexOf(',', at));
    }

    @Test
    void aBodylessRequestGetsTheLeastLoadedHost() {
        PluginVm vm = vmWithoutRedis();
        HttpStream onA = PluginFixture.stream(vm).withUpstreamHosts(onlyHealthy(A));
        onA.sendRequestHeaders(PluginFixture.get(), true);
        assertEquals(A, onA.upstreamOverride().orElseThrow());
        HttpStream onB = PluginFixture.stream(vm).withUpstreamHosts(onlyHealthy(B));
        onB.sendRequestHeaders(PluginFixture.get(), true);
        assertEquals(B, onB.upstreamOverride().orElseThrow());

        HttpStream next = bodyless(vm);
        assertEquals(C, next.upstreamOverride().orElseThrow(), PluginFixture.log(next));
        assertTrue(PluginFixture.log(next).contains("\"cost\":\"0\""), PluginFixture.log(next));
        List.of(onA, onB, next).forEach(HttpStream::complete);
        assertIdle(vm);
        assertTrue(vm.isAlive());
    }
}
