package io.ailb.scenarios;

import static io.ailb.lb.shell.ShellFixture.A;
import static io.ailb.lb.shell.ShellFixture.B;
import static io.ailb.lb.shell.ShellFixture.C;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.lb.shell.ShellFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * global_least_request, route and release, written once and run on both hosts: the built {@code .wasm} in the emulator
 * ({@link GlobalLeastRequestOnWasmTest}) and the shell on the JVM's fake host ({@link GlobalLeastRequestOnJvmTest}).
 * Both must show the same outcome in the shared Redis and on the streams.
 */
@Timeout(120)
abstract class GlobalLeastRequestSharedScenario {

    /** A gateway running the plugin with {@code pluginConfig}. */
    abstract SharedGateway start(String pluginConfig);

    private static String config(String extra) {
        return "{\"lb_policy\":\"global_least_request\",\"lb_config\":{" + ShellFixture.redisConfig(extra) + "}}";
    }

    private static SharedGateway.Stream send(SharedGateway gateway, String question) {
        SharedGateway.Stream stream = gateway.newStream();
        stream.sendRequestHeaders(PluginFixture.post().pairs(), false);
        stream.sendRequestBody(ShellFixture.chat("s", question), true);
        return stream;
    }

    @BeforeEach
    void emptyRedis() {
        PluginFixture.redis().flushAll();
    }

    @Test
    void requestsInFlightSpreadEvenlyAndEveryCountComesBack() {
        SharedGateway gateway = start(config(""));
        List<SharedGateway.Stream> open = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            open.add(send(gateway, "hello " + i));
        }

        assertEquals(Map.of(A, 2L, B, 2L, C, 2L), PluginFixture.inflight());
        for (SharedGateway.Stream stream : open) {
            assertTrue(stream.upstreamOverride().isPresent());
            assertTrue(stream.requestHeadersForwarded());
        }

        open.get(0).reset();
        for (SharedGateway.Stream stream : open.subList(1, open.size())) {
            stream.complete();
        }
        assertEquals(0L, PluginFixture.totalInflight(), PluginFixture.inflight().toString());
    }

    @Test
    void aBodylessRequestIsRoutedAtItsHeaders() {
        SharedGateway gateway = start(config(""));
        SharedGateway.Stream stream = gateway.newStream();

        stream.sendRequestHeaders(PluginFixture.get().pairs(), true);

        assertTrue(stream.requestHeadersForwarded());
        String chosen = stream.upstreamOverride().orElseThrow();
        assertEquals(Map.of(chosen, 1L), PluginFixture.inflight());
        stream.complete();
        assertEquals(0L, PluginFixture.totalInflight());
    }

    @Test
    void aRequestOverTheCapIsAnswered429AndCountsNothing() {
        SharedGateway gateway = start(config("\"maxRequestCount\":1"));
        for (int i = 0; i < 3; i++) {
            send(gateway, "fill " + i);
        }

        SharedGateway.Stream over = send(gateway, "one too many");

        assertEquals(
                Optional.of(Map.entry(429, "Exceeded maximum request limit from ai-load-balancer.")),
                over.localReply());
        assertFalse(over.upstreamOverride().isPresent());
        assertEquals(Map.of(A, 1L, B, 1L, C, 1L), PluginFixture.inflight());
    }
}
