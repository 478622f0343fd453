package io.ailb.scenarios;

import io.ailb.codec.resp.RespValue;
import io.ailb.emulator.ClusterHost;
import io.ailb.emulator.Gateway;
import io.ailb.emulator.HeaderMap;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.LocalRedis;
import io.ailb.emulator.PluginVm;
import io.ailb.emulator.WasmArtifacts;
import io.ailb.emulator.WasmPlugin;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The built plugin, one real Redis for the whole run, and the route every scenario uses. */
final class PluginFixture {
    static final String ROUTE = "ai-route-chat.internal";
    static final String CLUSTER = "outbound|8000||llm.static";
    static final String REDIS_CLUSTER = "outbound|6379||redis.static";
    static final String A = "10.0.0.1:8000";
    static final String B = "10.0.0.2:8000";
    static final String C = "10.0.0.3:8000";

    private static WasmPlugin plugin;
    private static LocalRedis redis;

    private PluginFixture() {}

    static synchronized WasmPlugin plugin() {
        if (plugin == null) {
            // -Dailb.wasm.ai-load-balancer=… runs the scenarios against another build (e.g. one with --names true).
            plugin = WasmArtifacts.load("ai-load-balancer");
        }
        return plugin;
    }

    static synchronized LocalRedis redis() {
        if (redis == null) {
            redis = LocalRedis.start();
            Runtime.getRuntime().addShutdownHook(new Thread(redis::close));
        }
        return redis;
    }

    static String redisConfig(String extra) {
        return "\"serviceFQDN\":\"redis.static\",\"servicePort\":6379" + (extra.isEmpty() ? "" : "," + extra);
    }

    /** A gateway with the three backends healthy and Redis registered. */
    static Gateway.Builder gateway(String pluginConfigJson) {
        return Gateway.builder(plugin())
                .withPluginConfig(pluginConfigJson)
                .withRedisCluster(REDIS_CLUSTER, redis().endpoint())
                .withUpstreamHosts(
                        CLUSTER, List.of(ClusterHost.healthy(A), ClusterHost.healthy(B), ClusterHost.healthy(C)));
    }

    static HttpStream stream(PluginVm vm) {
        return vm.newHttpStream().withRouteName(ROUTE).withClusterName(CLUSTER);
    }

    static HeaderMap post() {
        return HeaderMap.of(
                ":method",
                "POST",
                ":path",
                "/v1/chat/completions",
                ":authority",
                "llm.example.com",
                "content-type",
                "application/json");
    }

    static HeaderMap get() {
        return HeaderMap.of(":method", "GET", ":path", "/v1/models", ":authority", "llm.example.com");
    }

    /** A chat body with the given alternating user/assistant turns after a system prompt. */
    static String chat(String system, String... turns) {
        StringBuilder body = new StringBuilder("{\"model\":\"qwen\",\"stream\":true,\"messages\":[");
        body.append("{\"role\":\"system\",\"content\":\"").append(system).append("\"}");
        for (int i = 0; i < turns.length; i++) {
            body.append(",{\"role\":\"")
                    .append(i % 2 == 0 ? "user" : "assistant")
                    .append("\",\"content\":\"")
                    .append(turns[i])
                    .append("\"}");
        }
        return body.append("]}").toString();
    }

    /** Sends a whole POST; returns the stream, still open (the response has not ended it). */
    static HttpStream send(PluginVm vm, String body) {
        HttpStream stream = stream(vm);
        stream.sendRequestHeaders(post(), false);
        stream.sendRequestBody(body, true);
        return stream;
    }

    /** In-flight counts per host of the plugin's route, as Redis holds them now. */
    static Map<String, Long> inflight() {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (String key : keys("*inflight")) {
            List<RespValue> pairs = redis().command("HGETALL", key).elements();
            for (int i = 0; i + 1 < pairs.size(); i += 2) {
                counts.merge(pairs.get(i).asString(), pairs.get(i + 1).asLong(), Long::sum);
            }
        }
        return counts;
    }

    static long totalInflight() {
        return inflight().values().stream().mapToLong(Long::longValue).sum();
    }

    static List<String> keys(String pattern) {
        List<String> keys = new ArrayList<>();
        for (RespValue key : redis().command("KEYS", pattern).elements()) {
            keys.add(key.asString());
        }
        return keys;
    }
}
