package io.ailb.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.hash.PrefixHash;
import io.ailb.emulator.bindings.DataAction;
import io.ailb.emulator.bindings.HeaderAction;
import io.ailb.emulator.bindings.LogLevel;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every host call of the probe filter, end to end through probe.wasm on Chicory. */
@Timeout(120)
final class ProbeHostCallsTest {
    private static final String EMOJI_AND_CHINESE = "😀 负载均衡 ok";
    private static WasmPlugin plugin;

    @BeforeAll
    static void loadProbe() {
        plugin = Probe.load();
    }

    private static PluginVm startVm() {
        return Gateway.builder(plugin).withPluginConfig("{}").build().startVm();
    }

    @Test
    void requestHeadersReachTheGuestInOrderWithUtf8Intact() {
        String body = Probe.answer(startVm(), Probe.request("headers", "x-text", EMOJI_AND_CHINESE));
        assertEquals(
                ":method: GET\n:path: /probe\n:authority: probe\nx-probe-op: headers\nx-text: " + EMOJI_AND_CHINESE
                        + "\n",
                body);
    }

    @Test
    void anEmptyHeaderValueIsFoundAndEmpty() {
        HttpStream stream = startVm().newHttpStream();
        stream.sendRequestHeaders(Probe.request("get-header", "x-probe-arg", "x-empty", "x-empty", ""), true);
        assertEquals(200, stream.localReply().orElseThrow().status());
        assertEquals("", stream.localReply().orElseThrow().bodyText());
    }

    @Test
    void anAbsentHeaderIsNotFound() {
        HttpStream stream = startVm().newHttpStream();
        stream.sendRequestHeaders(Probe.request("get-header", "x-probe-arg", "x-absent"), true);
        assertEquals(404, stream.localReply().orElseThrow().status());
    }

    @Test
    void theLocalReplyCarriesStatusDetailsAndGuestHeaders() {
        HttpStream stream = startVm().newHttpStream();
        stream.sendRequestHeaders(Probe.request("get-header", "x-probe-arg", "x-a", "x-a", "v"), true);
        LocalReply reply = stream.localReply().orElseThrow();
        assertEquals("probe", reply.details());
        assertEquals("get-header", reply.headers().get("x-probe-op").orElseThrow());
        assertEquals("1", stream.responseHeaders().get("content-length").orElseThrow());
    }

    @Test
    void headerEditsBeforeContinueReachTheUpstreamRequest() {
        HttpStream stream = startVm().newHttpStream();
        int action = stream.sendRequestHeaders(
                Probe.request("mutate-headers", "x-probe-replace", "old", "x-probe-remove", "gone"), true);
        assertEquals(HeaderAction.CONTINUE, action);
        HeaderMap sent = stream.requestHeaders();
        assertEquals("yes", sent.get("x-probe-added").orElseThrow());
        assertEquals("replaced", sent.get("x-probe-replace").orElseThrow());
        assertTrue(sent.get("x-probe-remove").isEmpty());
        assertTrue(stream.requestHeadersForwarded());
    }

    @Test
    void theFilterCanSetAResponseHeader() {
        HttpStream stream = startVm().newHttpStream();
        stream.sendRequestHeaders(Probe.request("mutate-headers"), true);
        stream.sendResponseHeaders(HeaderMap.of(":status", "200"), true);
        assertEquals("4", stream.responseHeaders().get("x-probe-seen").orElseThrow());
    }

    @Test
    void propertiesRoundTripWithUtf8() {
        HttpStream stream = startVm().newHttpStream().withRouteName(EMOJI_AND_CHINESE);
        stream.sendRequestHeaders(Probe.request("property", "x-probe-arg", "route_name"), true);
        assertEquals(EMOJI_AND_CHINESE, stream.localReply().orElseThrow().bodyText());
    }

    @Test
    void nestedPropertyPathsAreJoinedWithNul() {
        HttpStream stream = startVm().newHttpStream().withProperty("cluster_metadata.filter_metadata.k", "v");
        stream.sendRequestHeaders(Probe.request("property", "x-probe-arg", "cluster_metadata.filter_metadata.k"), true);
        assertEquals("v", stream.localReply().orElseThrow().bodyText());
    }

    @Test
    void anEmptyPropertyIsFoundAndEmpty() {
        HttpStream stream = startVm().newHttpStream().withProperty("empty", "");
        stream.sendRequestHeaders(Probe.request("property", "x-probe-arg", "empty"), true);
        assertEquals(200, stream.localReply().orElseThrow().status());
        assertEquals("", stream.localReply().orElseThrow().bodyText());
    }

    @Test
    void aMissingPropertyIsNotFound() {
        HttpStream stream = startVm().newHttpStream();
        stream.sendRequestHeaders(Probe.request("property", "x-probe-arg", "no_such_property"), true);
        assertEquals(404, stream.localReply().orElseThrow().status());
    }

    @Test
    void aPropertyTheGuestSetsIsVisibleToTheHost() {
        HttpStream stream = startVm().newHttpStream();
        stream.sendRequestHeaders(
                Probe.request("set-property", "x-probe-arg", "custom.key", "x-probe-value", EMOJI_AND_CHINESE), true);
        assertEquals(EMOJI_AND_CHINESE, stream.property("custom.key").orElseThrow());
    }

    @Test
    void aMegabyteBodyInChunksIsBufferedAndSeenWhole() throws Exception {
        byte[] body = new byte[(1 << 20) + 12345];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (i * 31 + (i >> 8));
        }
        HttpStream stream = startVm().newHttpStream();
        assertEquals(HeaderAction.STOP_ITERATION, stream.sendRequestHeaders(Probe.request("body"), false));
        int chunk = 64 * 1024;
        for (int offset = 0; offset < body.length; offset += chunk) {
            int end = Math.min(body.length, offset + chunk);
            byte[] piece = java.util.Arrays.copyOfRange(body, offset, end);
            int action = stream.sendRequestBody(piece, end == body.length);
            assertTrue(action == DataAction.STOP_ITERATION_AND_BUFFER || end == body.length);
        }
        String sha1 =
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(body));
        assertEquals(
                "len=" + body.length + " sha1=" + sha1,
                stream.localReply().orElseThrow().bodyText());
    }

    @Test
    void theHashOpAnswersTheJvmDigestsOfTheBody() throws Exception {
        // Not a multiple of SHA-1's 64-byte block nor of PrefixHash's 16-byte stripe; sent in uneven chunks.
        byte[] body = new byte[100_003];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (i * 131 + (i >> 7));
        }
        String sha1 =
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(body));
        String prefix = PrefixHash.hexOf(body, 0, body.length);
        PluginVm vm = startVm();

        assertEquals("len=100003 sha1=" + sha1, hashAnswer(vm, body, "sha1", "1"));
        assertEquals("len=100003 sha1=" + sha1, hashAnswer(vm, body, "sha1", "3"));
        assertEquals("len=100003 prefix=" + prefix, hashAnswer(vm, body, "prefix", "1"));
        assertEquals("len=100003 prefix=" + prefix, hashAnswer(vm, body, "prefix", "5"));
        assertEquals("len=100003", hashAnswer(vm, body, "none", "7"));
        assertEquals(
                "len=0 prefix=" + PrefixHash.hexOf(new byte[0], 0, 0),
                Probe.answer(vm, Probe.request("hash", "x-probe-arg", "prefix")));
    }

    @Test
    void theHashOpRejectsAnUnknownHashOrRepeatCountAtTheHeaders() {
        PluginVm vm = startVm();
        for (String[] args : List.of(
                new String[] {"x-probe-arg", "md5"},
                new String[] {"x-probe-arg", "sha1", "x-probe-repeat", "0"},
                new String[] {"x-probe-arg", "prefix", "x-probe-repeat", "-2"},
                new String[] {"x-probe-arg", "prefix", "x-probe-repeat", "many"})) {
            HttpStream stream = vm.newHttpStream();
            stream.sendRequestHeaders(Probe.request("hash", args), false);
            assertEquals(
                    400,
                    stream.localReply().orElseThrow().status(),
                    List.of(args).toString());
        }
    }

    private static String hashAnswer(PluginVm vm, byte[] body, String hash, String repeat) {
        HttpStream stream = vm.newHttpStream();
        assertEquals(
                HeaderAction.STOP_ITERATION,
                stream.sendRequestHeaders(Probe.request("hash", "x-probe-arg", hash, "x-probe-repeat", repeat), false));
        int chunk = 7_001;
        for (int offset = 0; offset < body.length; offset += chunk) {
            int end = Math.min(body.length, offset + chunk);
            stream.sendRequestBody(Arrays.copyOfRange(body, offset, end), end == body.length);
        }
        return stream.localReply()
                .orElseThrow(() -> new AssertionError("no local reply" + vm.tail()))
                .bodyText();
    }

    /** Envoy's rule: a filter that buffers more request body than the stream's limit gets a 413, and ends there. */
    @Test
    void bufferingPastTheRequestBufferLimitGetsEnvoys413() {
        PluginVm vm = Gateway.builder(plugin)
                .withPluginConfig("{}")
                .withRequestBufferLimit(256 * 1024)
                .build()
                .startVm();
        HttpStream stream = vm.newHttpStream();
        stream.sendRequestHeaders(Probe.request("body"), false);
        byte[] chunk = new byte[64 * 1024];
        for (int i = 0; i < 5 && !stream.isEnded(); i++) {
            stream.sendRequestBody(chunk, false);
        }
        assertEquals(413, stream.localReply().orElseThrow().status());
        assertTrue(stream.isEnded());
        assertEquals(0, stream.forwardedRequestBody().length);
    }

    @Test
    void aFilterSetsItsStreamsRequestBufferLimitThroughHigresssProperty() {
        PluginVm vm = Gateway.builder(plugin)
                .withPluginConfig("{}")
                .withRequestBufferLimit(256 * 1024)
                .build()
                .startVm();
        HttpStream stream = vm.newHttpStream();
        assertEquals(256 * 1024, stream.requestBufferLimit());
        stream.sendRequestHeaders(
                Probe.request("set-property", "x-probe-arg", "set_decoder_buffer_limit", "x-probe-value", "4194304"),
                true);
        assertEquals(4 << 20, stream.requestBufferLimit());
    }

    @Test
    void theBufferedBodyIsNotForwardedWhileTheFilterPauses() {
        HttpStream stream = startVm().newHttpStream();
        stream.sendRequestHeaders(Probe.request("body"), false);
        stream.sendRequestBody("first", false);
        assertTrue(stream.isRequestPaused());
        assertEquals(0, stream.forwardedRequestBody().length);
        assertFalse(stream.requestHeadersForwarded());
    }

    @Test
    void aForcedGcBetweenHostCallsKeepsEveryValueIntact() {
        PluginVm vm = startVm();
        for (int i = 0; i < 5; i++) {
            String body =
                    Probe.answer(vm, Probe.request("headers", "x-probe-gc", "1", "x-text", EMOJI_AND_CHINESE + i));
            assertTrue(body.endsWith("x-text: " + EMOJI_AND_CHINESE + i + "\n"), body);
        }
        HttpStream stream = vm.newHttpStream();
        stream.sendRequestHeaders(Probe.request("body", "x-probe-gc", "1"), false);
        stream.sendRequestBody(EMOJI_AND_CHINESE, true);
        assertTrue(stream.localReply()
                .orElseThrow()
                .bodyText()
                .startsWith("len=" + EMOJI_AND_CHINESE.getBytes(StandardCharsets.UTF_8).length + " "));
    }

    @Test
    void upstreamHostsAreListedAndTheFirstHealthyOneBecomesTheOverride() {
        Gateway gateway = Gateway.builder(plugin)
                .withUpstreamHosts(
                        "outbound|80||llm",
                        List.of(
                                new ClusterHost("10.0.0.1:80", "Unhealthy", ""),
                                new ClusterHost("10.0.0.2:80", "Healthy", "vllm:num_requests_waiting 3\n")))
                .build();
        HttpStream stream = gateway.startVm().newHttpStream().withClusterName("outbound|80||llm");
        stream.sendRequestHeaders(Probe.request("upstreams"), true);
        assertEquals(
                "10.0.0.1:80 Unhealthy\n10.0.0.2:80 Healthy\noverride=10.0.0.2:80",
                stream.localReply().orElseThrow().bodyText());
        assertEquals("10.0.0.2:80", stream.upstreamOverride().orElseThrow());
        assertFalse(stream.upstreamOverrideAfterRouting());
    }

    @Test
    void withoutUpstreamHostsTheListIsEmpty() {
        HttpStream stream = startVm().newHttpStream();
        stream.sendRequestHeaders(Probe.request("upstreams"), true);
        assertEquals(404, stream.localReply().orElseThrow().status());
    }

    @Test
    void sharedDataHonoursCompareAndSwap() {
        Gateway gateway = Gateway.builder(plugin).build();
        PluginVm vm = gateway.startVm();
        // The first sets use CAS 0 (no value yet), which writes unconditionally.
        assertEquals(
                "before=- cas_ok=true stale_cas=OK",
                Probe.answer(vm, Probe.request("shared-data", "x-probe-arg", "k", "x-probe-value", "v1")));
        assertEquals(
                "before=v1 cas_ok=true stale_cas=CAS_MISMATCH",
                Probe.answer(vm, Probe.request("shared-data", "x-probe-arg", "k", "x-probe-value", "v2")));
        assertEquals("v2", gateway.sharedData().get("k").orElseThrow().text());
    }

    @Test
    void sharedDataIsSharedBetweenTheVmsOfAGateway() {
        Gateway gateway = Gateway.builder(plugin).build();
        List<PluginVm> vms = gateway.start(2);
        Probe.answer(vms.get(0), Probe.request("shared-data", "x-probe-arg", "k", "x-probe-value", "from-1"));
        assertTrue(Probe.answer(vms.get(1), Probe.request("shared-data", "x-probe-arg", "k", "x-probe-value", "x"))
                .startsWith("before=from-1 "));
    }

    @Test
    void metricsAreDefinedIncrementedRecordedAndReadableByName() {
        Gateway gateway = Gateway.builder(plugin).build();
        PluginVm vm = gateway.startVm();
        assertEquals("requests=1", Probe.answer(vm, Probe.request("metrics")));
        assertEquals("requests=2", Probe.answer(vm, Probe.request("metrics")));
        assertEquals(2, gateway.metrics().value("probe_requests"));
        assertEquals(42, gateway.metrics().value("probe_gauge"));
        assertEquals(List.of(7L, 7L), gateway.metrics().samples("probe_histogram"));
    }

    @Test
    void logLinesAreCapturedWithTheirLevel() {
        PluginVm vm = startVm();
        vm.newHttpStream().sendRequestHeaders(Probe.request("log"), true);
        for (int level = LogLevel.TRACE; level <= LogLevel.CRITICAL; level++) {
            assertTrue(vm.logs(level).contains("level " + level), "level " + level + ": " + vm.logs());
        }
    }

    @Test
    void anExceptionInACallbackIsLoggedAtErrorAndTheRequestContinues() {
        PluginVm vm = startVm();
        HttpStream stream = vm.newHttpStream();
        assertEquals(HeaderAction.CONTINUE, stream.sendRequestHeaders(Probe.request("throw"), true));
        assertTrue(
                vm.logs(LogLevel.ERROR).stream().anyMatch(line -> line.contains("probe: thrown on request")),
                vm.logs().toString());
        assertTrue(vm.isAlive());
        assertEquals("", Probe.answer(vm, Probe.request("get-header", "x-probe-arg", "x-e", "x-e", "")));
    }

    @Test
    void theGuestClockIsTheInjectedClock() {
        VirtualClock clock = VirtualClock.startingAt(Instant.parse("2026-01-02T03:04:05.678Z"));
        PluginVm vm = Gateway.builder(plugin).withClock(clock).build().startVm();
        assertEquals(Long.toString(clock.millis()), Probe.answer(vm, Probe.request("time")));
    }

    @Test
    void ticksFireAsVirtualTimeAdvances() {
        VirtualClock clock = VirtualClock.startingAt(Instant.EPOCH);
        Gateway gateway = Gateway.builder(plugin)
                .withClock(clock)
                .withPluginConfig("{\"tickMs\": 100}")
                .build();
        PluginVm vm = gateway.startVm();
        gateway.advance(Duration.ofMillis(350));
        assertEquals(3, gateway.metrics().value("probe_ticks"));
        assertTrue(vm.logs(LogLevel.INFO).contains("tick 3"));
        assertEquals(Instant.EPOCH.plusMillis(350), clock.instant());
    }

    @Test
    void theVmConfigurationIsReadableDuringVmStart() {
        PluginVm vm = Gateway.builder(plugin).withVmConfig("vm-cfg ✓").build().startVm();
        assertTrue(
                vm.logs(LogLevel.INFO).contains("vm_start config=vm-cfg ✓"),
                vm.logs().toString());
    }

    @Test
    void aRejectedConfigurationFailsTheVmStart() {
        Gateway gateway =
                Gateway.builder(plugin).withPluginConfig("{\"fail\": true}").build();
        ConfigurationRejectedException error = assertThrows(ConfigurationRejectedException.class, gateway::startVm);
        assertEquals(Optional.of("rejecting configuration"), error.reason(), "the guest's own reason");
        assertTrue(
                error.getMessage().startsWith("proxy_on_configure returned false: rejecting configuration\n"),
                error.getMessage());
        assertTrue(gateway.vms().isEmpty());
    }

    @Test
    void aConfigurationTheCanaryRejectsLeavesTheRunningVmsOnTheOldOne() {
        Gateway gateway = Gateway.builder(plugin).withPluginConfig("{}").build();
        PluginVm vm = gateway.start(2).get(0);
        assertFalse(gateway.reconfigure("{\"fail\": true}"));
        assertTrue(gateway.reconfigure("{\"tickMs\": 50}"));
        assertEquals(50, vm.tickPeriodMillis());
    }

    @Test
    void aStreamEndsWithLogDoneDeleteInThatOrder() {
        PluginVm vm = startVm();
        HttpStream stream = vm.newHttpStream();
        stream.sendRequestHeaders(Probe.request(""), true);
        stream.sendResponseHeaders(HeaderMap.of(":status", "200"), false);
        assertFalse(stream.isEnded());
        stream.sendResponseBody("done", true);
        assertTrue(stream.isEnded());
        int ctx = stream.contextId();
        assertEquals(
                List.of("on_log ctx=" + ctx, "on_done ctx=" + ctx, "on_delete ctx=" + ctx), vm.logs(LogLevel.DEBUG));
        assertEquals("done", new String(stream.forwardedResponseBody(), StandardCharsets.UTF_8));
    }

    @Test
    void aVmServesAThousandRequests() {
        PluginVm vm = startVm();
        for (int i = 0; i < 1000; i++) {
            assertEquals("/probe", Probe.answer(vm, Probe.request("get-header", "x-probe-arg", ":path")));
        }
    }

    @Test
    void aResetStreamAlsoEndsWithLogDoneDelete() {
        PluginVm vm = startVm();
        HttpStream stream = vm.newHttpStream();
        stream.sendRequestHeaders(Probe.request("body"), false);
        stream.reset();
        int ctx = stream.contextId();
        assertEquals(
                List.of("on_log ctx=" + ctx, "on_done ctx=" + ctx, "on_delete ctx=" + ctx), vm.logs(LogLevel.DEBUG));
        assertThrows(IllegalStateException.class, () -> stream.sendRequestBody("late", true));
    }
}
