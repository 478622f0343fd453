package io.ailb.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Smoke test of the built modules on Chicory: start, configure, a few requests. */
@Timeout(120)
class ExampleWasmTest {
    private static final int ROOT = 1;

    @Test
    void standardExampleAddsItsHeaderAndDeniesTheConfiguredPath() {
        TinyHost host = started(
                "standard-example.wasm", "{\"header\":\"x-hello\",\"value\":\"wörld\",\"denyPath\":\"/private\"}");

        host.export("proxy_on_context_create", 2, ROOT);
        host.requestHeaders.put(":path", "/public");
        assertEquals(0, host.export("proxy_on_request_headers", 2, 1, 1));
        assertEquals(Map.of("x-hello", "wörld"), host.addedHeaders);

        host.export("proxy_on_context_create", 3, ROOT);
        host.requestHeaders.put(":path", "/private");
        host.export("proxy_on_request_headers", 3, 1, 1);
        assertEquals(403, host.localStatus);
        assertEquals("denied\n", host.localBody);
    }

    @Test
    void probeListsTheRequestHeadersInHostOrder() {
        assertHeadersRoundTrip(false, 20);
    }

    @Test
    void probeListsHeadersWhileTheGcMovesEverythingBeforeEachHostCall() {
        assertHeadersRoundTrip(true, 5);
    }

    private static void assertHeadersRoundTrip(boolean forceGc, int streams) {
        TinyHost host = started("probe.wasm", "{}");
        host.requestHeaders.put(":path", "/");
        host.requestHeaders.put("x-probe-op", "headers");
        host.requestHeaders.put("x-probe-gc", forceGc ? "1" : "0");
        host.requestHeaders.put("x-text", "é中😀".repeat(50));
        StringBuilder expected = new StringBuilder();
        host.requestHeaders.forEach((name, value) ->
                expected.append(name).append(": ").append(value).append('\n'));

        for (int stream = 2; stream < 2 + streams; stream++) {
            host.localBody = null;
            host.export("proxy_on_context_create", stream, ROOT);
            host.export("proxy_on_request_headers", stream, host.requestHeaders.size(), 1);
            assertEquals(expected.toString(), host.localBody, "stream " + stream);
            host.export("proxy_on_delete", stream);
        }
    }

    @Test
    void probeSurvivesAnExceptionInACallback() {
        TinyHost host = started("probe.wasm", "{}");
        host.requestHeaders.put("x-probe-op", "throw");

        host.export("proxy_on_context_create", 2, ROOT);
        assertEquals(0, host.export("proxy_on_request_headers", 2, 1, 1));

        assertTrue(
                host.logs.stream()
                        .anyMatch(l -> l.startsWith("4 proxy_on_request_headers threw")
                                && l.contains("probe: thrown on request")),
                host.logs.toString());
    }

    @Test
    void probeRejectsAFailingConfiguration() {
        TinyHost host = new TinyHost(wasm("probe.wasm"));
        host.export("_start");
        host.export("proxy_on_context_create", ROOT, 0);
        host.pluginConfiguration = "{\"fail\": true}".getBytes(StandardCharsets.UTF_8);

        assertEquals(0, host.export("proxy_on_configure", ROOT, host.pluginConfiguration.length));
        assertTrue(host.logs.contains("2 rejecting configuration"), host.logs.toString());
    }

    private static TinyHost started(String file, String configuration) {
        TinyHost host = new TinyHost(wasm(file));
        host.export("_start");
        host.export("proxy_on_context_create", ROOT, 0);
        assertEquals(1, host.export("proxy_on_vm_start", ROOT, 0));
        host.pluginConfiguration = configuration.getBytes(StandardCharsets.UTF_8);
        assertEquals(1, host.export("proxy_on_configure", ROOT, host.pluginConfiguration.length));
        return host;
    }

    private static Path wasm(String file) {
        return Path.of("target", "wasm", file);
    }
}
