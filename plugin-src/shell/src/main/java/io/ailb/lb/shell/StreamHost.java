package io.ailb.lb.shell;

import io.ailb.codec.json.Json;
import io.ailb.codec.json.JsonException;
import io.ailb.codec.json.JsonValue;
import io.ailb.codec.json.JsonWriter;
import io.ailb.lb.flow.FlowHost;
import io.ailb.lb.flow.RedisReplyHandler;
import io.ailb.lb.redis.RedisTarget;
import io.ailb.proxywasm.Clock;
import io.ailb.proxywasm.Headers;
import io.ailb.proxywasm.Log;
import io.ailb.proxywasm.Properties;
import io.ailb.proxywasm.ProxyWasmException;
import io.ailb.proxywasm.Redis;
import io.ailb.proxywasm.RedisCallback;
import io.ailb.proxywasm.RedisReply;
import io.ailb.proxywasm.Stream;
import io.ailb.proxywasm.Upstreams;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** {@link FlowHost} over the proxy-wasm SDK, for one stream. */
final class StreamHost implements FlowHost {
    /**
     * The access-log property the decision's attributes are merged into ({@code %FILTER_STATE(wasm.ai_log:PLAIN)%}
     * in Higress's log format), next to what other AI plugins wrote there.
     */
    static final String ACCESS_LOG_PROPERTY = "ai_log";

    private final LoadBalancerRoot root;

    StreamHost(LoadBalancerRoot root) {
        this.root = root;
    }

    @Override
    public boolean sendRedis(RedisTarget target, byte[] command, RedisReplyHandler handler) {
        if (!root.redis().ready(target)) {
            return false;
        }
        try {
            Redis.call(RedisClients.callCluster(target), command, new RedisCallback() {
                @Override
                public void onReply(RedisReply reply) {
                    deliver(reply, handler);
                }

                @Override
                public void onOrphan(RedisReply reply) {
                    // The stream is gone; the flow knows it and only sends what it must release.
                    deliver(reply, handler);
                }
            });
            return true;
        } catch (ProxyWasmException e) {
            Log.warn("ai-load-balancer: redis call not sent: " + e.getMessage());
            return false;
        }
    }

    private static void deliver(RedisReply reply, RedisReplyHandler handler) {
        if (reply.hasValue()) {
            handler.onReply(reply.value());
        } else {
            handler.onFailure(reply.failure());
        }
    }

    @Override
    public boolean overrideUpstream(String host) {
        try {
            Upstreams.setOverrideHost(host);
            return true;
        } catch (ProxyWasmException e) {
            Log.warn("ai-load-balancer: override to " + host + " refused: " + e.getMessage());
            return false;
        }
    }

    @Override
    public boolean setRequestHeader(String name, String value) {
        try {
            Headers.request().replace(name, value);
            return true;
        } catch (ProxyWasmException e) {
            Log.warn("ai-load-balancer: request header " + name + " not written: " + e.getMessage());
            return false;
        }
    }

    @Override
    public void resume() {
        Stream.continueRequest();
    }

    @Override
    public void localReply(int status, String body) {
        Stream.sendLocalResponse(status, body.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void decided(Map<String, String> attributes) {
        if (Log.isEnabled(Log.Level.DEBUG)) {
            Log.debug("ai-load-balancer: decision " + attributes);
        }
        try {
            Properties.set(List.of(ACCESS_LOG_PROPERTY), mergeIntoAccessLog(attributes));
        } catch (ProxyWasmException e) {
            Log.debug("ai-load-balancer: access-log attributes not written: " + e.getMessage());
        }
    }

    /** Our attributes added to the JSON object already in the property (another plugin's), replacing equal keys. */
    private static String mergeIntoAccessLog(Map<String, String> attributes) {
        JsonWriter out = new JsonWriter().beginObject();
        byte[] existing = Properties.get(ACCESS_LOG_PROPERTY).orElse(null);
        if (existing != null && existing.length > 0) {
            try {
                JsonValue previous = Json.parse(existing);
                if (previous.isObject()) {
                    for (Map.Entry<String, JsonValue> member :
                            previous.members().entrySet()) {
                        if (!attributes.containsKey(member.getKey())) {
                            out.name(member.getKey()).value(member.getValue());
                        }
                    }
                }
            } catch (JsonException e) {
                // Not JSON: ours replaces it rather than producing an unreadable mix.
            }
        }
        for (Map.Entry<String, String> attribute : attributes.entrySet()) {
            out.name(attribute.getKey()).value(attribute.getValue());
        }
        return out.endObject().toString();
    }

    @Override
    public void count(String metric) {
        root.metrics().count(metric, 1);
    }

    @Override
    public void count(String metric, long delta) {
        root.metrics().count(metric, delta);
    }

    @Override
    public void addToGauge(String metric, long delta) {
        root.metrics().addToGauge(metric, delta);
    }

    @Override
    public void setGauge(String metric, long value) {
        root.metrics().setGauge(metric, value);
    }

    @Override
    public void record(String metric, long value) {
        root.metrics().record(metric, value);
    }

    @Override
    public void warn(String message) {
        Log.warn("ai-load-balancer: " + message);
    }

    @Override
    public long nowMillis() {
        return Clock.nowMillis();
    }
}
