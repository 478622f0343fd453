package io.ailb.lb.flow;

import io.ailb.lb.policy.LoadBalancingPolicy;
import io.ailb.lb.request.RequestParser;
import java.util.HashMap;
import java.util.Map;

/** The policies of one configured rule: the main one and, optionally, the one used when it fails. */
public final class RoutePolicy {
    private final String rulePath;
    private final LoadBalancingPolicy primary;
    private final LoadBalancingPolicy fallback;
    private boolean headerIgnoredReported;
    /** Bounded by the hosts of the rule's cluster. */
    private final Map<String, BackendMetrics> backendMetrics = new HashMap<>();

    private final boolean choosesCluster;
    private final int maxBodyBytes;
    private final int maxJsonDepth;

    RoutePolicy(
            String rulePath,
            LoadBalancingPolicy primary,
            LoadBalancingPolicy fallback,
            boolean choosesCluster,
            int maxBodyBytes,
            int maxJsonDepth) {
        this.rulePath = rulePath;
        this.maxBodyBytes = maxBodyBytes;
        this.maxJsonDepth = maxJsonDepth;
        this.choosesCluster = choosesCluster;
        this.primary = primary;
        this.fallback = fallback;
    }

    /** {@code _rules_[2]} or {@code global}. */
    public String rulePath() {
        return rulePath;
    }

    public LoadBalancingPolicy primary() {
        return primary;
    }

    /** The {@code fallback_policy} when {@code fallback_on_error} is on; null otherwise. */
    public LoadBalancingPolicy fallback() {
        return fallback;
    }

    /** The largest request body to buffer ({@code max_body_bytes}); a bigger one is decided without its prompt. */
    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    /** The JSON nesting the request reader accepts ({@code max_json_depth}); deeper is routed without the prompt. */
    public int maxJsonDepth() {
        return maxJsonDepth;
    }

    /** lb_type cluster: the policies choose a service, so the route's host list is not needed. */
    public boolean choosesCluster() {
        return choosesCluster;
    }

    /** True the first time only: the "cluster header ignored" warning is logged once per rule and VM. */
    boolean firstHeaderIgnored() {
        boolean first = !headerIgnoredReported;
        headerIgnoredReported = true;
        return first;
    }

    /** True when either policy needs the request body. */
    public boolean readsBody() {
        return primary.readsBody() || (fallback != null && fallback.readsBody());
    }

    /** The primary policy's prefix block boundaries (a fallback policy gets the same blocks). */
    public RequestParser.BlockBoundaries blockBoundaries() {
        return primary.blockBoundaries();
    }

    /** True when either policy needs the prompt, not just the body's scalar fields. */
    public boolean readsPrompt() {
        return primary.readsPrompt() || (fallback != null && fallback.readsPrompt());
    }

    /** The metric names of {@code host}, built on its first request. */
    BackendMetrics backendMetrics(String host) {
        BackendMetrics metrics = backendMetrics.get(host);
        if (metrics == null) {
            metrics = new BackendMetrics(host);
            backendMetrics.put(host, metrics);
        }
        return metrics;
    }
}
