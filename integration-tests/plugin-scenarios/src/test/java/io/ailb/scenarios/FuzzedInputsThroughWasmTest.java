package io.ailb.scenarios;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.Gateway;
import io.ailb.emulator.HeaderMap;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.PluginVm;
import io.ailb.emulator.bindings.LogLevel;
import io.ailb.lb.config.LbRule;
import io.ailb.lb.flow.BackendMetrics;
import io.ailb.lb.policy.PolicyRegistry;
import io.ailb.lb.redis.RedisTarget;
import io.ailb.lb.shell.ShellFixture;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzzed request bodies, host info and plugin configurations through the real {@code .wasm} (docs/reliability.md,
 * "Fuzzing"): {@value #DEFAULT_INPUTS} of each in CI, {@code -Dailb.fuzz.inputs=N} for a long run and
 * {@code -Dailb.fuzz.seed=S} for other inputs. Every VM stays alive (no trap), every request is forwarded or answered
 * and none is left paused (no hang), the request body reaches the upstream unchanged, and every in-flight count, in
 * Redis and in the backends' gauges, is back to 0 at each checkpoint. Inputs come from {@link FuzzedInputs}; a
 * failure names the seed and the input's index, which replay it.
 */
@Timeout(7200)
class FuzzedInputsThroughWasmTest {
    private static final int DEFAULT_INPUTS = 2000;
    private static final int INPUTS = Integer.getInteger("ailb.fuzz.inputs", DEFAULT_INPUTS);
    private static final long SEED = Long.getLong("ailb.fuzz.seed", 11L);
    /** Requests between two in-flight checks; Redis is emptied after each, so its key count stays bounded. */
    private static final int CHECKPOINT = 1000;

    @BeforeEach
    void emptyRedis() {
        PluginFixture.redis().command("FLUSHALL");
    }

    /** The policies that read bodies, each in a VM of its own; the inputs go round them. */
    private static List<String> bodyPolicies() {
        return PolicyRegistry.names().stream()
                .filter(name -> PolicyRegistry.lbType(name).equals(LbRule.LB_TYPE_ENDPOINT))
                .toList();
    }

    @Test
    void fuzzedBodiesAndHostInfoNeitherTrapNorHangAndLeaveNothingInFlight() {
        List<String> policies = bodyPolicies();
        List<Gateway> gateways = new ArrayList<>();
        List<PluginVm> vms = new ArrayList<>();
        for (String policy : policies) {
            Gateway gateway = PluginFixture.gateway(configOf(policy)).build();
            gateways.add(gateway);
            vms.add(gateway.startVm());
        }
        FuzzedInputs inputs = new FuzzedInputs(new Random(SEED));
        Tally tally = new Tally();
        long started = System.currentTimeMillis();
        for (int i = 0; i < INPUTS; i++) {
            int index = i;
            PluginVm vm = vms.get(i % vms.size());
            FuzzedInputs.Request request = inputs.request();
            Supplier<String> what = () -> "input " + index + " (seed " + SEED + ", " + policies.get(index % vms.size())
                    + "): " + request + vm.logs(LogLevel.ERROR);

            HttpStream stream = PluginFixture.stream(vm);
            if (request.hosts() != null) {
                stream.withUpstreamHosts(request.hosts());
            }
            send(stream, request);
            assertTrue(vm.isAlive(), () -> "the VM trapped on " + what.get());
            assertFalse(stream.isRequestPaused(), () -> "the request was left paused on " + what.get());
            if (stream.localReply().isPresent()) {
                tally.answered++;
            } else {
                assertTrue(stream.requestHeadersForwarded(), () -> "the request was not forwarded on " + what.get());
                assertArrayEquals(request.body(), stream.forwardedRequestBody(), () -> "body changed on " + what.get());
                tally.count(stream.upstreamOverride().isPresent());
            }
            finish(stream);
            if ((i + 1) % CHECKPOINT == 0 || i + 1 == INPUTS) {
                assertNothingInFlight(gateways, "after input " + i);
            }
        }
        for (PluginVm vm : vms) {
            assertTrue(vm.isAlive());
        }
        System.out.printf(
                "fuzzed bodies through the .wasm: %d inputs (seed %d) over %d policies in %d s: %d routed, "
                        + "%d left to the cluster's balancer, %d answered locally; 0 traps, 0 hangs, 0 in flight%n",
                INPUTS,
                SEED,
                policies.size(),
                (System.currentTimeMillis() - started) / 1000,
                tally.routed,
                tally.fellBack,
                tally.answered);
    }

    @Test
    void fuzzedConfigurationsAreAcceptedOrRefusedWithoutATrapAndTheVmServesOn() {
        Gateway gateway = PluginFixture.gateway(configOf("least_busy")).build();
        PluginVm vm = gateway.startVm();
        FuzzedInputs inputs = new FuzzedInputs(new Random(SEED));
        int configs = Math.max(1, INPUTS / 4);
        int accepted = 0;
        long started = System.currentTimeMillis();
        for (int i = 0; i < configs; i++) {
            String config = inputs.config();
            int index = i;
            Supplier<String> what = () -> "config " + index + " (seed " + SEED + "): " + config;
            // A trap in the canary VM propagates from reconfigure and fails the test.
            if (gateway.reconfigure(config)) {
                accepted++;
            }
            assertTrue(vm.isAlive(), () -> "the serving VM died on " + what.get());
            HttpStream stream = PluginFixture.stream(vm);
            send(stream, inputs.request());
            assertTrue(vm.isAlive(), () -> "the VM trapped serving under " + what.get() + vm.logs(LogLevel.ERROR));
            assertFalse(stream.isRequestPaused(), () -> "a request was left paused under " + what.get());
            assertTrue(
                    stream.requestHeadersForwarded() || stream.localReply().isPresent(),
                    () -> "a request was neither forwarded nor answered under " + what.get());
            finish(stream);
        }
        assertNothingInFlight(List.of(gateway), "after the configurations");
        assertTrue(
                configs < 20 || accepted > 0 && accepted < configs,
                accepted + " of " + configs + " accepted: the inputs vary");
        System.out.printf(
                "fuzzed configurations through the .wasm: %d (seed %d) in %d s: %d accepted, %d refused; "
                        + "0 traps, the serving VM routed a request after each%n",
                configs, SEED, (System.currentTimeMillis() - started) / 1000, accepted, configs - accepted);
    }

    private static void send(HttpStream stream, FuzzedInputs.Request request) {
        HeaderMap headers = PluginFixture.post();
        if (request.contentType() == null) {
            headers.remove("content-type");
        } else {
            headers.replace("content-type", request.contentType());
        }
        if (request.contentEncoding() != null) {
            headers.replace("content-encoding", request.contentEncoding());
        }
        byte[] body = request.body();
        if (body.length == 0) {
            stream.sendRequestHeaders(headers, true);
            return;
        }
        stream.sendRequestHeaders(headers, false);
        int from = 0;
        for (int cut : request.chunkEnds()) {
            byte[] chunk = Arrays.copyOfRange(body, from, cut);
            stream.sendRequestBody(chunk, cut == body.length);
            from = cut;
        }
    }

    private static void finish(HttpStream stream) {
        if (!stream.isEnded()) {
            stream.sendResponseHeaders(HeaderMap.of(":status", "200"), false);
            stream.sendResponseBody("{\"choices\":[]}", true);
            stream.complete();
        }
    }

    private static void assertNothingInFlight(List<Gateway> gateways, String when) {
        Map<String, Long> inRedis = PluginFixture.inflight();
        for (Map.Entry<String, Long> count : inRedis.entrySet()) {
            assertEquals(0L, count.getValue(), when + ": in flight in Redis on " + count.getKey());
        }
        String gaugeSuffix = "." + BackendMetrics.INFLIGHT;
        for (Gateway gateway : gateways) {
            for (String name : gateway.metrics().names()) {
                if (name.endsWith(gaugeSuffix)) {
                    assertEquals(0L, gateway.metrics().value(name), when + ": gauge " + name);
                }
            }
        }
        PluginFixture.redis().command("FLUSHALL");
    }

    /** How the requests that were forwarded ended up. */
    private static final class Tally {
        long routed;
        long fellBack;
        long answered;

        void count(boolean pinned) {
            if (pinned) {
                routed++;
            } else {
                fellBack++;
            }
        }
    }

    /** The policy with the Redis fields it needs and nothing else. */
    private static String configOf(String policy) {
        String redis = namesRedis(policy) ? ShellFixture.redisConfig("") : "";
        return "{\"lb_policy\":\"" + policy + "\",\"lb_config\":{" + redis + "}}";
    }

    /** True when the policy has a Redis service field (cache_aware's is required only for index redis, its default). */
    private static boolean namesRedis(String policy) {
        return PolicyRegistry.fields(policy).stream()
                .anyMatch(field -> field.name().equals(RedisTarget.SERVICE_FQDN.name()));
    }
}
