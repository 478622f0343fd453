package io.ailb.lb.shell;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.flow.RouteTable;
import io.ailb.lb.util.Rng;
import io.ailb.proxywasm.Clock;
import io.ailb.proxywasm.HttpCall;
import io.ailb.proxywasm.HttpContext;
import io.ailb.proxywasm.Log;
import io.ailb.proxywasm.ProxyWasmException;
import io.ailb.proxywasm.RootContext;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap.SimpleEntry;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/** The plugin context of one VM: the configuration, Redis clients, metrics and the metrics scrapes on tick. */
final class LoadBalancerRoot extends RootContext {

    private final RedisClients redis = new RedisClients();
    private final Metrics metrics = new Metrics();
    private final Rng random;
    private final GatewaySharedState sharedState;
    private RouteTable table;

    LoadBalancerRoot(int contextId) {
        super(contextId);
        // Seeded from WASI randomness: each VM (one per Envoy worker) breaks ties differently.
        random = new Rng(new java.util.Random().nextLong());
        // Its own draw, so the tie-break sequence of the VM's generator stays what it was without shared state.
        sharedState = new GatewaySharedState(Long.toHexString(new java.util.Random().nextLong()));
    }

    @Override
    public boolean onConfigure(byte[] pluginConfiguration) {
        RouteTable next;
        try {
            next = RouteTable.parse(pluginConfiguration);
        } catch (ConfigException e) {
            Log.error("ai-load-balancer: invalid configuration, plugin not started: " + e.getMessage());
            logWarnings(e.warnings());
            return false;
        }
        logWarnings(next.warnings());
        table = next;
        redis.configure(next.redisTargets());
        Clock.setTickPeriodMillis((int) Math.min(Integer.MAX_VALUE, next.tickPeriodMillis()));
        Log.info("ai-load-balancer: configured");
        return true;
    }

    private static void logWarnings(List<String> warnings) {
        for (String warning : warnings) {
            Log.warn("ai-load-balancer: configuration warning: " + warning);
        }
    }

    @Override
    public void onTick() {
        if (table == null) {
            return;
        }
        long now = Clock.nowMillis();
        table.shareState(sharedState, now);
        for (RouteTable.ScrapeJob job : table.onTick(now)) {
            scrape(job);
        }
    }

    private static void scrape(RouteTable.ScrapeJob job) {
        List<Map.Entry<String, String>> headers = List.of(
                new SimpleEntry<>(":method", "GET"),
                new SimpleEntry<>(":path", job.request().path()),
                new SimpleEntry<>(":authority", job.request().host()));
        try {
            HttpCall.dispatch(
                    job.request().clusterName(),
                    headers,
                    new byte[0],
                    Collections.emptyList(),
                    job.request().timeoutMillis(),
                    response -> {
                        byte[] body = response.body();
                        int maxBytes = job.request().maxBodyBytes();
                        if (body != null && body.length > maxBytes) {
                            // Not parsed at all: the policy's cap bounds guest memory whatever the endpoint sends.
                            Log.warn("ai-load-balancer: metrics page of "
                                    + job.request().host() + " is " + body.length + " bytes, over metricsMaxBytes "
                                    + maxBytes + "; scrape counted as failed");
                            job.complete(0, null, Clock.nowMillis());
                            return;
                        }
                        job.complete(
                                response.isFailure() ? 0 : response.status(),
                                body == null ? null : new String(body, StandardCharsets.UTF_8),
                                Clock.nowMillis());
                    });
        } catch (ProxyWasmException e) {
            job.complete(0, null, Clock.nowMillis());
        }
    }

    @Override
    public HttpContext newHttpContext(int contextId) {
        return new LoadBalancerStream(contextId, this);
    }

    /** The current configuration; null before the first successful configure. */
    RouteTable table() {
        return table;
    }

    RedisClients redis() {
        return redis;
    }

    Metrics metrics() {
        return metrics;
    }

    Rng random() {
        return random;
    }
}
