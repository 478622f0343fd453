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
    /** Bounded by the hosts of the rule's cluster. */
    private final Map<String, BackendMetrics> backendMetrics = new HashMap<>();

    RoutePolicy(String rulePath, LoadBalancingPolicy primary, LoadBalancingPolicy fallback) {
        this.rulePath = rulePath;
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
