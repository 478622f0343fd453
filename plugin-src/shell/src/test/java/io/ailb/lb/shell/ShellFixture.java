package io.ailb.lb.shell;

import static io.ailb.proxywasm.testkit.FakeStream.headers;

import io.ailb.codec.resp.RespValue;
import io.ailb.proxywasm.testkit.FakeHost;
import io.ailb.proxywasm.testkit.FakeStream;
import io.ailb.proxywasm.testkit.HigressHosts;
import io.ailb.proxywasm.testkit.RealRedis;
import io.ailb.proxywasm.testkit.RedisCallout;
import io.ailb.proxywasm.testkit.RedisResponder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The shell on the testkit's fake host, configured through its JSON like the gateway does: one route, three backends,
 * one Redis cluster. Only the plugin's entry point and configuration are used, not the core's classes. The plugin
 * scenarios use the same route, backends and requests for the built {@code .wasm} in the emulator.
 */
public final class ShellFixture {
    public static final String ROUTE = "ai-route-chat.internal";
    public static final String CLUSTER = "outbound|8000||llm.static";
    public static final String REDIS_CLUSTER = "outbound|6379||redis.static";
    public static final String A = "10.0.0.1:8000";
    public static final String B = "10.0.0.2:8000";
    public static final String C = "10.0.0.3:8000";
    static final String REDIS_CONFIG = redisConfig("");
    static final String GLOBAL_LEAST_REQUEST =
            "{\"lb_policy\":\"global_least_request\",\"lb_config\":{" + REDIS_CONFIG + "}}";

    private static RealRedis redis;

    private ShellFixture() {}

    /** One real Redis for every test of the run; a test that needs it empty flushes it first. */
    static synchronized RealRedis redis() {
        if (redis == null) {
            redis = RealRedis.start();
            Runtime.getRuntime().addShutdownHook(new Thread(redis::close));
        }
        return redis;
    }

    /** A host with the three backends healthy and {@code redis} answering the Redis cluster. */
    public static FakeHost host(String pluginConfig, RedisResponder redis) {
        return new FakeHost()
                .withPluginConfig(pluginConfig)
                .withRedisCluster(REDIS_CLUSTER, redis)
                .withUpstreamHosts(List.of(HigressHosts.healthy(A), HigressHosts.healthy(B), HigressHosts.healthy(C)));
    }

    /** Starts the plugin through its Wasm entry point; fails the test if the configuration is refused. */
    public static FakeHost started(FakeHost host) {
        if (!host.start(AiLoadBalancerPlugin::main)) {
            throw new AssertionError("configuration refused: " + host.logs());
        }
        return host;
    }

    public static FakeStream stream(FakeHost host) {
        return host.newStream().withRouteName(ROUTE).withClusterName(CLUSTER);
    }

    /** A chat completion's request headers, then {@code extraNamesAndValues}. */
    public static List<Map.Entry<String, String>> post(String... extraNamesAndValues) {
        List<Map.Entry<String, String>> post = headers(
                ":method",
                "POST",
                ":path",
                "/v1/chat/completions",
                ":authority",
                "llm.example.com",
                "content-type",
                "application/json");
        post.addAll(headers(extraNamesAndValues));
        return post;
    }

    public static List<Map.Entry<String, String>> get() {
        return headers(":method", "GET", ":path", "/v1/models", ":authority", "llm.example.com");
    }

    /** The plugin's Redis settings for the Redis cluster, then {@code extra} fields. */
    public static String redisConfig(String extra) {
        return "\"serviceFQDN\":\"redis.static\",\"servicePort\":6379" + (extra.isEmpty() ? "" : "," + extra);
    }

    /** A chat body with the given alternating user/assistant turns after a system prompt. */
    public static String chat(String system, String... turns) {
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

    /** A whole POST; the stream stays open. */
    static FakeStream send(FakeHost host, String body) {
        FakeStream stream = stream(host);
        stream.sendRequestHeaders(post(), false);
        stream.sendRequestBody(body, true);
        return stream;
    }

    /** A GET whose headers end the stream; the stream stays open. */
    static FakeStream sendGet(FakeHost host) {
        FakeStream stream = stream(host);
        stream.sendRequestHeaders(get(), true);
        return stream;
    }

    /** In-flight counts per host as Redis holds them. */
    static Map<String, Long> inflight(RealRedis redis) {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (RespValue key : redis.command("KEYS", "*inflight").elements()) {
            List<RespValue> pairs = redis.command("HGETALL", key.asString()).elements();
            for (int i = 0; i + 1 < pairs.size(); i += 2) {
                counts.merge(pairs.get(i).asString(), pairs.get(i + 1).asLong(), Long::sum);
            }
        }
        counts.values().removeIf(count -> count == 0);
        return counts;
    }

    /**
     * The commands the plugin sent since callout {@code from}, one per command: an EVALSHA that met NOSCRIPT and was
     * sent again as EVAL counts once, as its EVAL.
     */
    static List<RedisCallout> commandsSince(FakeHost host, int from) {
        List<RedisCallout> sent = new ArrayList<>();
        List<RedisCallout> all = host.redisCallouts();
        for (RedisCallout call : all.subList(from, all.size())) {
            boolean retried = call.answer()
                    .map(answer -> !answer.isNetworkError()
                            && answer.value().isError()
                            && answer.value().errorCode().equals("NOSCRIPT"))
                    .orElse(false);
            if (!retried) {
                sent.add(call);
            }
        }
        return sent;
    }

    /** The script a call runs, by SHA-1: the one EVALSHA names, or the hash of the text EVAL carries. */
    static String scriptSha(RedisCallout call) {
        if (call.commandName().equals("EVALSHA")) {
            return call.command().get(1);
        }
        if (call.commandName().equals("EVAL")) {
            return sha1(call.command().get(1));
        }
        throw new AssertionError("not a script call: " + call);
    }

    /** Computed with the JDK, not with the plugin's own SHA-1. */
    static String sha1(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
