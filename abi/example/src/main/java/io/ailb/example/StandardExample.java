package io.ailb.example;

import io.ailb.codec.json.Json;
import io.ailb.codec.json.JsonValue;
import io.ailb.proxywasm.HeaderStatus;
import io.ailb.proxywasm.Headers;
import io.ailb.proxywasm.HttpContext;
import io.ailb.proxywasm.Log;
import io.ailb.proxywasm.ProxyWasm;
import io.ailb.proxywasm.RootContext;
import io.ailb.proxywasm.Stream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The SDK in one page, standard proxy-wasm calls only. Configuration:
 * {@code {"header": "x-hello", "value": "world", "denyPath": "/private"}} adds {@code x-hello: world} to every
 * request and answers requests for {@code /private} with 403.
 */
public final class StandardExample extends RootContext {
    private String header = "x-hello";
    private String value = "world";
    private String denyPath;

    private StandardExample(int contextId) {
        super(contextId);
    }

    /** Runs in Envoy's restricted start phase: register, nothing else. */
    public static void main(String[] args) {
        ProxyWasm.setRootContext(StandardExample::new);
    }

    @Override
    public boolean onConfigure(byte[] pluginConfiguration) {
        JsonValue config = Json.parse(pluginConfiguration.length == 0 ? "{}".getBytes() : pluginConfiguration);
        if (!config.isObject()) {
            Log.error("configuration must be a JSON object");
            return false;
        }
        header = stringOr(config.get("header"), header);
        value = stringOr(config.get("value"), value);
        denyPath = stringOr(config.get("denyPath"), null);
        Log.info("configured: " + header + "=" + value + ", deny " + denyPath);
        return true;
    }

    @Override
    public HttpContext newHttpContext(int contextId) {
        return new HttpContext(contextId) {
            @Override
            public HeaderStatus onRequestHeaders(int headerCount, boolean endOfStream) {
                String path = Headers.request().get(":path").orElse("/");
                Log.log(Log.Level.DEBUG, () -> "request " + contextId() + " for " + path);
                if (path.equals(denyPath)) {
                    byte[] body = "denied\n".getBytes(StandardCharsets.UTF_8);
                    Stream.sendLocalResponse(
                            403, "denied_by_example", body, List.of(Map.entry("x-denied-by", "example")));
                    return HeaderStatus.STOP_ITERATION;
                }
                Headers.request().add(header, value);
                return HeaderStatus.CONTINUE;
            }
        };
    }

    private static String stringOr(JsonValue member, String fallback) {
        return member != null && member.isString() ? member.asString() : fallback;
    }
}
