package io.ailb.scenarios;

import static io.ailb.lb.shell.ShellFixture.A;
import static io.ailb.lb.shell.ShellFixture.B;
import static io.ailb.lb.shell.ShellFixture.C;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.Gateway;
import io.ailb.emulator.HttpCallAnswer;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.PluginVm;
import io.ailb.emulator.VirtualClock;
import io.ailb.lb.shell.ShellFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * endpoint_metrics scraping instances that answer errors, garbage or nothing: an instance keeps its last good metrics
 * until {@code unhealthyThreshold} scrapes in a row failed, is then skipped, and comes back with its first good scrape;
 * with no usable metrics at all every request still goes on, routed by the cluster's load balancer.
 */
@Timeout(120)
class MetricsEndpointFaultScenarioTest {
    private static final String BUSY = "vllm:num_requests_waiting 9\nvllm:gpu_cache_usage_perc 0.9\n";
    private static final String IDLE = "vllm:num_requests_waiting 0\nvllm:gpu_cache_usage_perc 0.1\n";
    private static final String MEDIUM = "vllm:num_requests_waiting 3\nvllm:gpu_cache_usage_perc 0.5\n";
    private static final Duration REFRESH = Duration.ofMillis(1000);

    private final Map<String, HttpCallAnswer> answers = new ConcurrentHashMap<>();

    private Gateway gateway() {
        answers.put(A, HttpCallAnswer.status(200).withBody(BUSY));
        answers.put(B, HttpCallAnswer.status(200).withBody(IDLE));
        answers.put(C, HttpCallAnswer.status(200).withBody(MEDIUM));
        return PluginFixture.gateway("{\"lb_policy\":\"least_busy\",\"lb_config\":{\"metricsPath\":\"/metrics\","
                        + "\"metricsRefreshInterval\":" + REFRESH.toMillis() + ",\"unhealthyThreshold\":2}}")
                .withClock(VirtualClock.startingAt(Instant.EPOCH))
                .withHttpDispatcher(
                        call -> answers.get(call.headers().get(":authority").orElse("")))
                .build();
    }

    private static String route(PluginVm vm, String question) {
        HttpStream stream = PluginFixture.send(vm, ShellFixture.chat("s", question));
        assertTrue(stream.requestHeadersForwarded(), "the request went on");
        stream.complete();
        return stream.upstreamOverride().orElse("cluster");
    }

    @Test
    void aFailingInstanceKeepsItsMetricsUntilTheThresholdThenIsSkippedUntilItRecovers() {
        Gateway gateway = gateway();
        PluginVm vm = gateway.startVm();
        assertEquals("cluster", route(vm, "first: hosts seen, nothing scraped yet"));
        gateway.advance(REFRESH);
        assertEquals(B, route(vm, "scraped"));

        answers.put(B, HttpCallAnswer.status(500).withBody("internal error"));
        gateway.advance(REFRESH);
        assertEquals(B, route(vm, "one failure: the last good metrics still count"));

        answers.put(B, HttpCallAnswer.status(200).withBody("\u0000\u00ff{{ not an exposition ]]\nvllm:"));
        gateway.advance(REFRESH);
        assertEquals(C, route(vm, "two failures in a row: B is skipped"));

        answers.put(B, HttpCallAnswer.timeout());
        gateway.advance(REFRESH);
        assertEquals(C, route(vm, "no answer at all"));
        answers.put(B, HttpCallAnswer.reset());
        gateway.advance(REFRESH);
        assertEquals(C, route(vm, "connection reset"));
        answers.put(B, HttpCallAnswer.status(200).withBody(""));
        gateway.advance(REFRESH);
        assertEquals(C, route(vm, "an empty page"));

        answers.put(B, HttpCallAnswer.status(200).withBody(IDLE));
        gateway.advance(REFRESH);
        assertEquals(B, route(vm, "recovered"));
        assertTrue(vm.isAlive());
    }

    /** A page past 4 MiB is refused unparsed (a failed scrape), so no endpoint can fill a VM's memory. */
    @Test
    void anOversizedMetricsPageCountsAsAFailedScrape() {
        Gateway gateway = gateway();
        PluginVm vm = gateway.startVm();
        route(vm, "hosts seen");
        gateway.advance(REFRESH);
        assertEquals(B, route(vm, "scraped"));

        String huge = IDLE + "# padding\n".repeat(500_000);
        answers.put(B, HttpCallAnswer.status(200).withBody(huge));
        gateway.advance(REFRESH.multipliedBy(2));
        assertEquals(C, route(vm, "two oversized pages in a row: B is skipped"));
        assertTrue(
                vm.logs().stream().anyMatch(l -> l.message().contains("scrape counted as failed")),
                vm.logs().toString());
        assertTrue(vm.isAlive());
    }

    @Test
    void withEveryInstanceFailingRequestsAreLeftToTheCluster() {
        Gateway gateway = gateway();
        PluginVm vm = gateway.startVm();
        route(vm, "hosts seen");
        gateway.advance(REFRESH);
        assertEquals(B, route(vm, "scraped"));

        answers.put(A, HttpCallAnswer.status(503));
        answers.put(B, HttpCallAnswer.status(200).withBody("garbage"));
        answers.put(C, HttpCallAnswer.timeout());
        gateway.advance(REFRESH.multipliedBy(2));

        for (int i = 0; i < 5; i++) {
            assertEquals("cluster", route(vm, "all down " + i));
        }
        assertEquals(6L, gateway.metrics().value("ailb.fallback.no_metrics"));
        assertTrue(vm.isAlive());
    }
}
