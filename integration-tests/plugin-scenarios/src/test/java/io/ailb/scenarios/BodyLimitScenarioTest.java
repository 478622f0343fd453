package io.ailb.scenarios;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.Gateway;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.PluginVm;
import io.ailb.hostkit.FilterStream;
import io.ailb.lb.shell.ShellFixture;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The request body against Envoy's buffer limit (stock Envoy: 1 MiB per stream; a filter that buffers more gets a 413),
 * through the real .wasm: the plugin raises its streams' limit to {@code max_body_bytes}, never buffers past it, and
 * decides a bigger request without its prompt while the body streams through.
 */
@Timeout(120)
class BodyLimitScenarioTest {
    private static final String PREFIX_CACHE = "prefix_cache";

    @BeforeEach
    void emptyRedis() {
        PluginFixture.redis().flushAll();
    }

    private static Gateway gateway(String maxBodyBytes) {
        String config = "{\"lb_policy\":\"" + PREFIX_CACHE + "\"," + maxBodyBytes + "\"lb_config\":{"
                + ShellFixture.redisConfig("") + "}}";
        return PluginFixture.gateway(config)
                .withRequestBufferLimit(FilterStream.ENVOY_DEFAULT_BUFFER_LIMIT)
                .build();
    }

    private static String chatOf(int bytes) {
        char[] text = new char[bytes];
        Arrays.fill(text, 'a');
        return ShellFixture.chat("be brief", new String(text));
    }

    /** Sends the body in 64 KiB chunks, as a client upload arrives. */
    private static HttpStream upload(PluginVm vm, String body, boolean withLength) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        HttpStream stream = PluginFixture.stream(vm);
        var headers = PluginFixture.post();
        if (withLength) {
            headers.replace("content-length", Integer.toString(bytes.length));
        }
        stream.sendRequestHeaders(headers, false);
        for (int at = 0; at < bytes.length && !stream.isEnded(); at += 65_536) {
            int end = Math.min(bytes.length, at + 65_536);
            stream.sendRequestBody(Arrays.copyOfRange(bytes, at, end), end == bytes.length);
        }
        return stream;
    }

    @Test
    void aPromptLongerThanEnvoysDefaultLimitIsReadNotRefused() {
        PluginVm vm = gateway("").startVm();
        String body = chatOf(3 << 20);
        HttpStream stream = upload(vm, body, false);

        assertFalse(stream.localReply().isPresent(), "a 413 from the buffer limit: " + stream.localReply());
        assertEquals(10 << 20, stream.requestBufferLimit(), "raised to max_body_bytes");
        assertTrue(stream.upstreamOverride().isPresent());
        assertFalse(PluginFixture.keys("*:p:*").isEmpty(), "the prompt was read: its prefix keys are stored");
        assertArrayEquals(body.getBytes(StandardCharsets.UTF_8), stream.forwardedRequestBody());
        stream.complete();
        assertEquals(0, PluginFixture.totalInflight());
    }

    @Test
    void aBodyPastTheCapIsDecidedWithoutItsPromptAndStreamsThrough() {
        PluginVm vm = gateway("\"max_body_bytes\":200000,").startVm();
        String body = chatOf(600_000);
        HttpStream stream = upload(vm, body, false);

        assertFalse(stream.localReply().isPresent(), String.valueOf(stream.localReply()));
        assertTrue(stream.upstreamOverride().isPresent(), "routed by load without the prompt");
        assertTrue(PluginFixture.keys("*:p:*").isEmpty(), "no prompt was read: no prefix key stored");
        assertArrayEquals(body.getBytes(StandardCharsets.UTF_8), stream.forwardedRequestBody());
        assertTrue(vm.isAlive());
        stream.complete();
        assertEquals(0, PluginFixture.totalInflight());
    }

    @Test
    void aDeclaredLengthPastTheCapIsDecidedAtTheHeaders() {
        PluginVm vm = gateway("\"max_body_bytes\":200000,").startVm();
        HttpStream stream = PluginFixture.stream(vm);
        var headers = PluginFixture.post();
        headers.replace("content-length", "600000");
        stream.sendRequestHeaders(headers, false);

        assertTrue(stream.upstreamOverride().isPresent(), "decided before any body byte");
        assertTrue(stream.requestHeadersForwarded());
        assertEquals(FilterStream.ENVOY_DEFAULT_BUFFER_LIMIT, stream.requestBufferLimit(), "nothing to buffer");
        stream.sendRequestBody(chatOf(600_000), true);
        assertFalse(stream.localReply().isPresent());
        stream.complete();
    }
}
