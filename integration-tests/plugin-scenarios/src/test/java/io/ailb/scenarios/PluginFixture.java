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
import io.ailb.lb.shell.ShellFixture;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The built plugin and one real Redis for the whole run; the route, backends and requests are ShellFixture's. */
final class PluginFixture {
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

    /** A gateway with the three backends healthy and Redis registered. */
    static Gateway.Builder gateway(String pluginConfigJson) {
        return Gateway.builder(plugin())
                .withPluginConfig(pluginConfigJson)
                .withRedisCluster(ShellFixture.REDIS_CLUSTER, redis().endpoint())
                .withUpstreamHosts(
                        ShellFixture.CLUSTER,
                        List.of(
                                ClusterHost.healthy(ShellFixture.A),
                                ClusterHost.healthy(ShellFixture.B),
                                ClusterHost.healthy(ShellFixture.C)));
    }

    static HttpStream stream(PluginVm vm) {
        return vm.newHttpStream().withRouteName(ShellFixture.ROUTE).withClusterName(ShellFixture.CLUSTER);
    }

    static HeaderMap post() {
        return HeaderMap.copyOf(ShellFixture.post());
    }

    static HeaderMap get() {
        return HeaderMap.copyOf(ShellFixture.get());
    }

    /** {@code chars} characters of {@code seed} repeated with spaces: a prompt of a known size. */
    static String text(String seed, int chars) {
        StringBuilder out = new StringBuilder(chars);
        while (out.length() < chars) {
            out.append(seed).append(' ');
        }
        return out.substring(0, chars);
    }

    /** The decision attributes the plugin wrote for the stream ({@code ai_log}). */
    static String log(HttpStream stream) {
        return stream.property("ai_log").orElseThrow();
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
