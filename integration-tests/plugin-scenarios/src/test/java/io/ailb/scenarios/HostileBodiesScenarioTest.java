package io.ailb.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.ClusterHost;
import io.ailb.emulator.HeaderMap;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.PluginVm;
import io.ailb.emulator.bindings.LogLevel;
import io.ailb.lb.config.LbRule;
import io.ailb.lb.policy.PolicyRegistry;
import io.ailb.lb.redis.RedisTarget;
import io.ailb.lb.shell.ShellFixture;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bodies shaped to exhaust the guest: hundreds of thousands of tiny messages, deep nesting, one huge string, a
 * string of escapes. Each policy's VM takes them all, one after the other: no trap, every one decided (routed, or
 * passed to the cluster's own balancer), and a normal request afterwards is still routed by the same VM.
 */
@Timeout(600)
class HostileBodiesScenarioTest {
    private static final Map<String, byte[]> BODIES = bodies();

    @BeforeEach
    void emptyRedis() {
        PluginFixture.redis().command("FLUSHALL");
    }

    /** The policies that read bodies: lb_type cluster ones decide at the request headers and never see one. */
    static List<String> policies() {
        return PolicyRegistry.names().stream()
                .filter(name -> PolicyRegistry.lbType(name).equals(LbRule.LB_TYPE_ENDPOINT))
                .toList();
    }

    @ParameterizedTest
    @MethodSource("policies")
    void noBodyShapeTrapsThePolicyAndTheVmServesOnAfterwards(String policy) {
        String config = namesRedis(policy) ? ShellFixture.redisConfig("") : "";
        PluginVm vm = PluginFixture.gateway("{\"lb_policy\":\"" + policy + "\",\"lb_config\":{" + config + "}}")
                .withUpstreamHosts(
                        ShellFixture.CLUSTER,
                        List.of(
                                new ClusterHost(ShellFixture.A, "Healthy", metrics(5)),
                                new ClusterHost(ShellFixture.B, "Healthy", metrics(1)),
                                new ClusterHost(ShellFixture.C, "Healthy", metrics(3))))
                .build()
                .startVm();

        for (Map.Entry<String, byte[]> body : BODIES.entrySet()) {
            String what = policy + ", " + body.getKey();
            HttpStream hostile = PluginFixture.stream(vm);
            hostile.sendRequestHeaders(PluginFixture.post(), false);
            hostile.sendRequestBody(body.getValue(), true);
            assertTrue(vm.isAlive(), () -> what + ": the VM died" + vm.logs(LogLevel.ERROR));
            assertFalse(hostile.localReply().isPresent(), what + ": answered locally instead of forwarded");
            finish(hostile);

            HttpStream normal = PluginFixture.send(vm, ShellFixture.chat("be brief", "hello after " + body.getKey()));
            assertTrue(
                    normal.upstreamOverride().isPresent(),
                    () -> what + ": the next request was not routed" + vm.logs(LogLevel.ERROR));
            finish(normal);
        }
        assertTrue(vm.isAlive());
        if (namesRedis(policy)) {
            assertEquals(0, PluginFixture.totalInflight(), policy + ": every request released its count");
        }
    }

    private static void finish(HttpStream stream) {
        stream.sendResponseHeaders(HeaderMap.of(":status", "200"), false);
        stream.sendResponseBody("{\"choices\":[]}", true);
        stream.complete();
    }

    private static String metrics(int waiting) {
        return "vllm:num_requests_waiting " + waiting
                + "\nvllm:num_requests_running 2\nvllm:gpu_cache_usage_perc 0.2\n";
    }

    private static Map<String, byte[]> bodies() {
        Map<String, byte[]> bodies = new LinkedHashMap<>();
        bodies.put("100,000 tiny messages", tinyMessages(100_000));
        bodies.put("200,000 tiny messages", tinyMessages(200_000));
        bodies.put(
                "100,000 nested arrays as content",
                utf8("{\"model\":\"m\",\"messages\":[{\"role\":\"user\"," + "\"content\":" + "[".repeat(100_000)
                        + "]".repeat(100_000) + "}]}"));
        bodies.put(
                "100,000 nested objects outside the prompt",
                utf8("{\"x\":" + "{\"a\":".repeat(100_000) + "1" + "}".repeat(100_000)
                        + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"));
        bodies.put(
                "one 4 MiB string",
                utf8("{\"messages\":[{\"role\":\"user\",\"content\":\"" + "y".repeat(4 << 20) + "\"}]}"));
        bodies.put(
                "1 MiB of escapes",
                utf8("{\"messages\":[{\"role\":\"user\",\"content\":\"" + "\\n\\u00e9\\\"\\ud83d\\ude00".repeat(1 << 16)
                        + "\"}]}"));
        bodies.put(
                "100,000 content parts",
                utf8("{\"messages\":[{\"role\":\"user\",\"content\":["
                        + "{\"type\":\"text\",\"text\":\"p\"},".repeat(100_000) + "\"end\"]}]}"));
        bodies.put("a prompt of 100,000 strings", utf8("{\"prompt\":[" + "\"p\",".repeat(100_000) + "\"q\"]}"));
        return bodies;
    }

    /** {@code n} messages of one character, user and assistant in turn: n / 2 user turns. */
    private static byte[] tinyMessages(int n) {
        StringBuilder sb = new StringBuilder(36 * n).append("{\"model\":\"m\",\"messages\":[");
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ",")
                    .append(
                            i % 2 == 0
                                    ? "{\"role\":\"user\",\"content\":\"x\"}"
                                    : "{\"role\":\"assistant\",\"content\":\"y\"}");
        }
        return utf8(sb.append("]}").toString());
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** True when the policy has a Redis service field (cache_aware's is required only for index redis, its default). */
    private static boolean namesRedis(String policy) {
        return PolicyRegistry.fields(policy).stream()
                .anyMatch(field -> field.name().equals(RedisTarget.SERVICE_FQDN.name()));
    }
}
