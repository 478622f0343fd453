package io.ailb.scenarios;

import static io.ailb.lb.shell.ShellFixture.A;
import static io.ailb.lb.shell.ShellFixture.B;
import static io.ailb.lb.shell.ShellFixture.C;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.Delivery;
import io.ailb.emulator.Gateway;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.LocalReply;
import io.ailb.emulator.PluginVm;
import io.ailb.lb.shell.ShellFixture;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** global_least_request through the real .wasm and a real Redis. */
@Timeout(120)
class GlobalLeastRequestScenarioTest {
    private static String config(String extra) {
        return "{\"lb_policy\":\"global_least_request\",\"lb_config\":{" + ShellFixture.redisConfig(extra) + "}}";
    }

    @BeforeEach
    void emptyRedis() {
        PluginFixture.redis().flushAll();
    }

    @Test
    void requestsInFlightAreSpreadEvenlyOverTheBackends() {
        PluginVm vm = PluginFixture.gateway(config("")).build().startVm();
        List<HttpStream> open = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            open.add(PluginFixture.send(vm, ShellFixture.chat("s", "hello " + i)));
        }

        assertEquals(Map.of(A, 2L, B, 2L, C, 2L), PluginFixture.inflight());
        for (HttpStream stream : open) {
            assertTrue(stream.upstreamOverride().isPresent());
            assertTrue(stream.requestHeadersForwarded(), "every request went on after its decision");
        }
    }

    @Test
    void aBodylessRequestIsDecidedAtOnceAndNeverWaitsForABody() {
        PluginVm vm = PluginFixture.gateway(config("")).build().startVm();
        HttpStream stream = PluginFixture.stream(vm);

        stream.sendRequestHeaders(PluginFixture.get(), true);

        assertTrue(stream.requestHeadersForwarded());
        assertTrue(stream.upstreamOverride().isPresent());
    }

    @Test
    void countsReturnToZeroAfterCompletedAbortedAndResetStreams() {
        PluginVm vm = PluginFixture.gateway(config(""))
                .withDelivery(Delivery.MANUAL)
                .build()
                .startVm();

        HttpStream completed = PluginFixture.stream(vm);
        completed.sendRequestHeaders(PluginFixture.get(), true);
        vm.deliverPending();
        assertTrue(completed.requestHeadersForwarded());

        HttpStream aborted = PluginFixture.stream(vm);
        aborted.sendRequestHeaders(PluginFixture.post(), false);
        vm.deliverPending();
        aborted.sendRequestBody("{\"model\":\"q\",", false);

        HttpStream resetBeforeReply = PluginFixture.stream(vm);
        resetBeforeReply.sendRequestHeaders(PluginFixture.get(), true);
        assertEquals(3L, PluginFixture.totalInflight(), "the third count is in Redis before its reply arrives");

        resetBeforeReply.reset();
        aborted.reset();
        completed.complete();
        drain(vm);

        assertEquals(0L, PluginFixture.totalInflight(), PluginFixture.inflight().toString());
        assertFalse(resetBeforeReply.upstreamOverride().isPresent(), "a late reply touches no stream");
    }

    @Test
    void gatewaysAndTheirWorkerVmsShareOneCount() {
        Gateway first = PluginFixture.gateway(config("")).build();
        Gateway second = PluginFixture.gateway(config("")).build();
        List<PluginVm> vms = new ArrayList<>(first.start(2));
        vms.add(second.startVm());

        Set<String> chosen = new HashSet<>();
        for (PluginVm vm : vms) {
            chosen.add(PluginFixture.send(vm, ShellFixture.chat("s", "hi"))
                    .upstreamOverride()
                    .orElseThrow());
        }

        assertEquals(Set.of(A, B, C), chosen, "each VM saw the others' in-flight requests");
    }

    @Test
    void aRequestOverMaxRequestCountIsAnswered429AndCountsNothing() {
        PluginVm vm =
                PluginFixture.gateway(config("\"maxRequestCount\":1")).build().startVm();
        for (int i = 0; i < 3; i++) {
            PluginFixture.send(vm, ShellFixture.chat("s", "fill " + i));
        }

        HttpStream over = PluginFixture.send(vm, ShellFixture.chat("s", "one too many"));

        LocalReply reply = over.localReply().orElseThrow();
        assertEquals(429, reply.status());
        assertEquals("Exceeded maximum request limit from ai-load-balancer.", reply.bodyText());
        over.complete();
        assertEquals(Map.of(A, 1L, B, 1L, C, 1L), PluginFixture.inflight());
    }

    @Test
    void theDecisionIsWrittenToTheAccessLogAndCounted() {
        PluginVm vm = PluginFixture.gateway(config("")).build().startVm();
        HttpStream stream = PluginFixture.send(vm, ShellFixture.chat("s", "hello"));

        String log = stream.property("ai_log").orElseThrow();
        assertTrue(log.contains("\"lb_policy\":\"global_least_request\""), log);
        assertTrue(
                log.contains("\"selected_host\":\"" + stream.upstreamOverride().orElseThrow() + "\""), log);
        assertEquals(1L, vm.gateway().metrics().value("ailb.routed.global_least_request"));
        assertEquals(
                1L,
                vm.gateway()
                        .metrics()
                        .value("ailb.backend." + stream.upstreamOverride().orElseThrow() + ".routed"));
    }

    /** Delivers replies until none is left (a late reply's release produces one more). */
    static void drain(PluginVm vm) {
        for (int round = 0; round < 10 && vm.pendingCount() > 0; round++) {
            vm.deliverPending();
        }
        assertEquals(0, vm.pendingCount());
    }
}
