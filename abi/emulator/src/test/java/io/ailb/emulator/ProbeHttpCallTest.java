package io.ailb.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code proxy_http_call} answered MockWebServer-style: script, run, verify. */
@Timeout(120)
final class ProbeHttpCallTest {
    private static WasmPlugin plugin;

    @BeforeAll
    static void loadProbe() {
        plugin = Probe.load();
    }

    @Test
    void aScriptedResponseReachesTheGuest() {
        Gateway gateway = Gateway.builder(plugin)
                .build()
                .enqueueHttpResponse(HttpCallAnswer.status(200).withBody("pong ✓"));
        String body = Probe.answer(gateway.startVm(), Probe.request("http-call", "x-probe-arg", "outbound|80||svc"));
        assertEquals("status=200 body=pong ✓", body);
    }

    @Test
    void theRecordedCallShowsClusterHeadersAndTimeout() {
        Gateway gateway = Gateway.builder(plugin).build().enqueueHttpResponse(HttpCallAnswer.status(204));
        Probe.answer(gateway.startVm(), Probe.request("http-call", "x-probe-arg", "outbound|80||svc"));
        HttpCallRequest call = gateway.takeHttpCall().orElseThrow();
        assertEquals("outbound|80||svc", call.cluster());
        assertEquals("/probe", call.headers().get(":path").orElseThrow());
        assertEquals(1000, call.timeoutMillis());
    }

    @Test
    void callIdsCountUpInFours() {
        Gateway gateway = Gateway.builder(plugin).build();
        PluginVm vm = gateway.startVm();
        Probe.answer(vm, Probe.request("http-call", "x-probe-arg", "a"));
        Probe.answer(vm, Probe.request("http-call", "x-probe-arg", "b"));
        assertEquals(4, gateway.takeHttpCall().orElseThrow().callId());
        assertEquals(8, gateway.takeHttpCall().orElseThrow().callId());
    }

    @Test
    void aTimeoutReachesTheGuestAsAFailure() {
        Gateway gateway = Gateway.builder(plugin).build().enqueueHttpResponse(HttpCallAnswer.timeout());
        HttpStream stream = gateway.startVm().newHttpStream();
        stream.sendRequestHeaders(Probe.request("http-call", "x-probe-arg", "svc"), true);
        assertEquals(503, stream.localReply().orElseThrow().status());
        assertEquals("http-call failed", stream.localReply().orElseThrow().bodyText());
    }

    @Test
    void aResetReachesTheGuestAsAFailure() {
        Gateway gateway = Gateway.builder(plugin).build().enqueueHttpResponse(HttpCallAnswer.reset());
        assertEquals(
                "http-call failed", Probe.answer(gateway.startVm(), Probe.request("http-call", "x-probe-arg", "svc")));
    }

    @Test
    void aDispatcherAnswersByRule() {
        Gateway gateway = Gateway.builder(plugin)
                .withHttpDispatcher(call -> HttpCallAnswer.status(200).withBody("for " + call.cluster()))
                .build();
        assertEquals(
                "status=200 body=for svc-b",
                Probe.answer(gateway.startVm(), Probe.request("http-call", "x-probe-arg", "svc-b")));
    }

    @Test
    void withManualDeliveryTheStreamWaitsUntilTheTestDelivers() {
        Gateway gateway = Gateway.builder(plugin)
                .withDelivery(Delivery.MANUAL)
                .build()
                .enqueueHttpResponse(HttpCallAnswer.status(200).withBody("late"));
        PluginVm vm = gateway.startVm();
        HttpStream stream = vm.newHttpStream();
        stream.sendRequestHeaders(Probe.request("http-call", "x-probe-arg", "svc"), true);
        assertTrue(stream.localReply().isEmpty());
        assertTrue(stream.isRequestPaused());
        assertEquals(1, vm.deliverPending());
        assertEquals("status=200 body=late", stream.localReply().orElseThrow().bodyText());
    }
}
