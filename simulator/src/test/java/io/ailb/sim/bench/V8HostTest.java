package io.ailb.sim.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.resp.RespDecoder;
import io.ailb.codec.resp.RespValue;
import io.ailb.emulator.ClusterHost;
import io.ailb.emulator.LocalRedis;
import io.ailb.emulator.WasmArtifacts;
import io.ailb.lb.redis.RedisKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The V8 bench host is a correct proxy-wasm host, not just a fast one: one request per policy through the real .wasm
 * in Node with a real Redis is routed, the decision's reply reaches the guest, and the release gives the in-flight
 * count back. Skipped when node is not on PATH.
 */
@Timeout(180)
class V8HostTest {
    private static final String IDLE_HOST = "10.0.0.2:8000";

    @Test
    void everyPolicyRoutesOneRequestAndReleasesItInRedis(@TempDir Path dir) throws Exception {
        V8Host node = V8Host.find(System.getProperty("node.executable", "node")).orElse(null);
        Assumptions.assumeTrue(node != null, "node is not on PATH (or -Dnode.executable is wrong): V8 host skipped");
        Path wasm = WasmArtifacts.path("ai-load-balancer");
        byte[] bytes = ConversationBodies.conversation(1 << 10, 7);
        Path file = dir.resolve("body.json");
        Files.write(file, bytes);
        V8Host.Body body = new V8Host.Body("conversation", bytes.length, ConversationBodies.MESSAGES, file);
        List<String> hosts = PolicyCase.HOSTS.stream().map(ClusterHost::address).toList();
        RedisKeys keys = RedisKeys.of(PolicyCase.ROUTE, PolicyCase.CLUSTER);

        try (LocalRedis redis = LocalRedis.start()) {
            for (V8Host.Policy policy : V8CostBench.POLICIES) {
                V8Host.Run run = new V8Host.Run(
                        wasm,
                        policy,
                        redis.endpoint(),
                        true,
                        new V8Host.Limits(0, 0, 0, 0, 1, 1),
                        V8CostBench.LOG_LEVEL_INFO,
                        true,
                        List.of(),
                        60);
                V8Host.Report report = node.run(run, List.of(body), dir, line -> {});
                String what = policy.name() + ": " + report;

                assertNull(report.failure(), what);
                assertEquals(1, report.cells().size(), what);
                V8Host.Cell cell = report.cells().get(0);
                assertEquals(
                        List.of(1, 1, 0, 0),
                        List.of(cell.samples(), cell.routed(), cell.traps(), cell.stalled()),
                        what);
                assertTrue(cell.medianNs() > 0, what);
                assertEquals(1, report.traces().size(), what);
                V8Host.Trace trace = report.traces().get(0);
                assertTrue(trace.routed(), what);
                assertTrue(hosts.contains(trace.override()), what);

                if (policy.name().equals("least_busy")) {
                    // Decided from the metrics in the host info: the idle host, without Redis.
                    assertEquals(IDLE_HOST, trace.override(), what);
                    assertEquals(List.of(), trace.commands(), what);
                    continue;
                }
                if (policy.name().startsWith("cache_aware+local")) {
                    // Decided by the index in the VM: no Redis at all.
                    assertEquals(List.of(), trace.commands(), what);
                    assertEquals(0, cell.redisCalls(), what);
                    continue;
                }
                List<RespValue> replies = trace.replies().stream()
                        .map(reply -> RespDecoder.DEFAULT.decodeExactly(reply, 0, reply.length))
                        .toList();
                RespValue decision = replies.stream()
                        .filter(r -> r.kind() == RespValue.Kind.ARRAY
                                && r.elements().get(0).asString().equals("ok"))
                        .findFirst()
                        .orElse(null);
                assertNotNull(decision, what + " " + replies);
                // The guest routed to the host in the script's reply, which counted this request as the only one.
                assertEquals(trace.override(), decision.elements().get(1).asString(), what);
                assertEquals(1, decision.elements().get(2).asLong(), what);
                // The last reply is the release's: the lease was taken and nothing is left in flight.
                RespValue release = replies.get(replies.size() - 1);
                assertEquals(RespValue.Kind.INTEGER, release.kind(), what + " " + replies);
                assertEquals(0, release.asLong(), what + " " + replies);
                assertEquals(0, redis.command("HLEN", keys.inflight()).asLong(), what);
                String leases = policy.name().equals("cache_aware") ? keys.cacheAwareLeases() : keys.leases();
                assertEquals(0, redis.command("ZCARD", leases).asLong(), what);
                if (policy.name().equals("cache_aware")) {
                    assertEquals(0, redis.command("HLEN", keys.load()).asLong(), what);
                }
            }
        }
    }
}
