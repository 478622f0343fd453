package io.ailb.scenarios;

import static io.ailb.lb.shell.ShellFixture.A;
import static io.ailb.lb.shell.ShellFixture.B;
import static io.ailb.lb.shell.ShellFixture.C;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.ClusterHost;
import io.ailb.emulator.HeaderMap;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.PluginVm;
import io.ailb.emulator.bindings.LogLevel;
import io.ailb.lb.shell.ShellFixture;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One VM serves a long run of mixed requests — four policies on four routes, bodies from none to 48 KiB, some streams
 * reset before their response — as one Envoy worker would: every request gets a backend, every in-flight count comes
 * back, and guest memory stops growing after warm-up.
 *
 * <p>CI runs {@value #CI_REQUESTS} requests. The long soak of docs/reliability.md ("Soak") is the same test with
 * {@code -Dailb.soak.requests=1000000 -Dailb.soak.report=PATH}: it prints the figures and writes that section of
 * PATH at every checkpoint from 10,000 requests on, so a run cut short still leaves what it measured.
 */
@Timeout(value = 3, unit = TimeUnit.HOURS)
class SoakScenarioTest {
    static final int CI_REQUESTS = 10_000;
    /** Memory is compared from here on: the heap has reached the size the mix needs. */
    private static final int WARM_UP = 2_000;

    private static final int REQUESTS = Integer.getInteger("ailb.soak.requests", CI_REQUESTS);
    private static final String REPORT = System.getProperty("ailb.soak.report", "");
    private static final long PAGE = 65_536;
    private static final String[] ROUTES = {
        "soak-least-busy", "soak-global-least-request", "soak-prefix-cache", "soak-cache-aware"
    };
    private static final String LOREM = "lorem ipsum dolor sit amet, consectetur adipiscing elit. ";

    /** Memory after {@code requests} requests, and the wall time it took to get there. */
    private record Checkpoint(long requests, long memoryBytes, long elapsedMillis) {}

    @Test
    void oneVmServesAMixOfPoliciesAndSizesWithFlatMemory() throws IOException {
        PluginFixture.redis().flushAll();
        PluginVm vm = PluginFixture.gateway(config())
                .withUpstreamHosts(
                        ShellFixture.CLUSTER,
                        List.of(
                                new ClusterHost(A, "Healthy", vllm(5, 0.5)),
                                new ClusterHost(B, "Healthy", vllm(1, 0.1)),
                                new ClusterHost(C, "Healthy", vllm(3, 0.3))))
                .build()
                .startVm();
        SplittableRandom random = new SplittableRandom(11);
        List<Checkpoint> checkpoints = new ArrayList<>();
        long started = System.nanoTime();
        checkpoints.add(new Checkpoint(0, vm.memoryBytes(), 0));
        long memoryAfterWarmUp = 0;
        int resets = 0;

        for (int i = 1; i <= REQUESTS; i++) {
            resets += serveOne(vm, random, i);
            if (i == Math.min(WARM_UP, REQUESTS)) {
                memoryAfterWarmUp = vm.memoryBytes();
            }
            if (isCheckpoint(i)) {
                checkpoints.add(new Checkpoint(i, vm.memoryBytes(), (System.nanoTime() - started) / 1_000_000));
                report(checkpoints, resets, i == REQUESTS);
            }
        }

        assertTrue(vm.isAlive());
        assertEquals(0L, PluginFixture.totalInflight(), "every request gave its in-flight count back");
        assertEquals(memoryAfterWarmUp, vm.memoryBytes(), "guest memory grew after warm-up: a leak");
    }

    /** Sends request {@code i} and ends it; returns 1 when it was reset before its response, else 0. */
    private static int serveOne(PluginVm vm, SplittableRandom random, int i) {
        String route = ROUTES[random.nextInt(ROUTES.length)];
        HttpStream stream = vm.newHttpStream().withRouteName(route).withClusterName(ShellFixture.CLUSTER);
        int shape = random.nextInt(100);
        if (shape < 3) {
            stream.sendRequestHeaders(PluginFixture.get(), true);
        } else {
            stream.sendRequestHeaders(PluginFixture.post(), false);
            stream.sendRequestBody(body(random, shape), true);
        }
        String chosen = stream.upstreamOverride().orElse("none");
        assertTrue(
                chosen.equals(A) || chosen.equals(B) || chosen.equals(C),
                () -> "request " + i + " on " + route + " went to " + chosen + "; VM alive=" + vm.isAlive()
                        + vm.logs(LogLevel.ERROR));
        if (random.nextInt(100) < 3) {
            stream.reset();
            return 1;
        }
        stream.sendResponseHeaders(HeaderMap.of(":status", "200"), false);
        stream.sendResponseBody("{\"choices\":[{\"delta\":{\"content\":\"ok\"}}]}", true);
        stream.complete();
        return 0;
    }

    /** 72 % short chats (≈ 0.3 KiB), 20 % multi-turn (≈ 4 KiB), 5 % long ones (≈ 48 KiB); 500 conversations. */
    private static String body(SplittableRandom random, int shape) {
        int conversation = random.nextInt(500);
        int turns;
        int words;
        if (shape < 75) {
            turns = 1 + random.nextInt(3);
            words = 2;
        } else if (shape < 95) {
            turns = 5 + random.nextInt(6);
            words = 8;
        } else {
            turns = 15 + random.nextInt(10);
            words = 50;
        }
        String[] messages = new String[turns];
        for (int t = 0; t < turns; t++) {
            messages[t] = "conversation " + conversation + " turn " + t + " " + LOREM.repeat(words);
        }
        return ShellFixture.chat("system prompt " + conversation % 7, messages);
    }

    private static boolean isCheckpoint(int i) {
        return i == REQUESTS || i == 1_000 || i == 10_000 || i % 50_000 == 0;
    }

    private static String config() {
        String redis = ShellFixture.redisConfig("\"redisKeyTTL\":600");
        return "{\"_rules_\":["
                + "{\"_match_route_\":[\"" + ROUTES[0] + "\"],\"lb_policy\":\"least_busy\",\"lb_config\":{}},"
                + "{\"_match_route_\":[\"" + ROUTES[1] + "\"],\"lb_policy\":\"global_least_request\",\"lb_config\":{"
                + redis + "}},"
                + "{\"_match_route_\":[\"" + ROUTES[2] + "\"],\"lb_policy\":\"prefix_cache\",\"lb_config\":{"
                + redis + "}},"
                + "{\"_match_route_\":[\"" + ROUTES[3] + "\"],\"lb_policy\":\"cache_aware\",\"lb_config\":{"
                + redis + "}}]}";
    }

    private static String vllm(int waiting, double cache) {
        return "vllm:num_requests_waiting " + waiting + "\nvllm:num_requests_running 2\nvllm:gpu_cache_usage_perc "
                + cache + "\n";
    }

    /** Prints the checkpoints; writes the Soak section of the report file from 10,000 requests on. */
    private static void report(List<Checkpoint> checkpoints, int resets, boolean last) throws IOException {
        Checkpoint latest = checkpoints.get(checkpoints.size() - 1);
        System.out.printf(
                Locale.ROOT,
                "soak: %,d requests, %d pages (%,d bytes), %.1f s%n",
                latest.requests(),
                latest.memoryBytes() / PAGE,
                latest.memoryBytes(),
                latest.elapsedMillis() / 1000.0);
        if (REPORT.isEmpty() || latest.requests() < 10_000) {
            return;
        }
        StringBuilder section = new StringBuilder();
        section.append("## Soak\n\n")
                .append("One VM (Chicory, the emulator) serving a mix of four policies on four routes — least_busy, ")
                .append("global_least_request, prefix_cache, cache_aware, chosen at random per request — against ")
                .append("the embedded Redis: 3 % bodyless GETs, 72 % short chats (≈ 0.3 KiB), 20 % multi-turn ")
                .append("(≈ 4 KiB), 5 % long (≈ 48 KiB), 500 conversations, 3 % of streams reset before their ")
                .append("response. Every request must get a backend. Produced by\n\n```bash\n")
                .append("mvn -B -o verify -pl integration-tests/plugin-scenarios -am -Dtest=SoakScenarioTest \\\n")
                .append("    -Dsurefire.failIfNoSpecifiedTests=false -Dailb.soak.requests=")
                .append(REQUESTS)
                .append(" -Dailb.soak.report=$PWD/docs/reliability.md\n```\n\n")
                .append(
                        "| requests served | guest memory (64 KiB pages) | bytes | wall time |\n|---:|---:|---:|---:|\n");
        for (Checkpoint checkpoint : checkpoints) {
            section.append(String.format(
                    Locale.ROOT,
                    "| %,d | %d | %,d | %.0f s |%n",
                    checkpoint.requests(),
                    checkpoint.memoryBytes() / PAGE,
                    checkpoint.memoryBytes(),
                    checkpoint.elapsedMillis() / 1000.0));
        }
        section.append(String.format(
                Locale.ROOT,
                "%n%s %,d requests (%,d reset before their response), every one routed; in-flight counts in Redis "
                        + "at the end: %d. CI runs the same test with %,d requests and fails if memory grows after "
                        + "the first %,d.%n",
                last ? "Run complete:" : "Run in progress, last checkpoint:",
                latest.requests(),
                resets,
                PluginFixture.totalInflight(),
                CI_REQUESTS,
                WARM_UP));
        ReliabilityDoc.writeSection(Path.of(REPORT), "soak", section.toString());
    }
}
