package io.ailb.lb.policy.inflight;

import io.ailb.lb.model.Endpoint;
import io.ailb.lb.policy.FallbackReason;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.policy.Step;
import io.ailb.lb.redis.RedisKeys;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What a selection script call (select.lua, cache_aware.lua) takes from the request context, or the fallback Step when
 * there is nothing to ask Redis (no healthy host, no route info).
 */
public final class SelectionInputs {
    private final Step fallback;
    private final Set<String> healthy;
    private final List<String> healthyHosts;
    private final List<String> unhealthyHosts;
    private final RedisKeys keys;
    private final int randomValue;
    private final String leaseId;

    private SelectionInputs(
            Step fallback,
            Set<String> healthy,
            List<String> unhealthyHosts,
            RedisKeys keys,
            int randomValue,
            String leaseId) {
        this.fallback = fallback;
        this.healthy = healthy;
        this.healthyHosts = healthy == null ? null : new ArrayList<>(healthy);
        this.unhealthyHosts = unhealthyHosts;
        this.keys = keys;
        this.randomValue = randomValue;
        this.leaseId = leaseId;
    }

    /** Draws the tie-break value and the lease id only when the call is made, so fallbacks leave the random alone. */
    public static SelectionInputs of(RequestContext ctx, String policyName) {
        Set<String> healthy = addresses(ctx.healthy());
        if (healthy.isEmpty()) {
            return fallback(FallbackReason.NO_HEALTHY_HOST, policyName);
        }
        if (isBlank(ctx.routeName()) || isBlank(ctx.clusterName())) {
            return fallback(FallbackReason.NO_ROUTE_INFO, policyName);
        }
        Set<String> unhealthy = addresses(ctx.endpoints());
        unhealthy.removeAll(healthy);
        RedisKeys keys = RedisKeys.of(ctx.routeName(), ctx.clusterName());
        int randomValue = ctx.random().nextInt(InflightSelection.randomBound());
        String leaseId = InflightSelection.leaseId(ctx.random().nextLong());
        return new SelectionInputs(null, healthy, new ArrayList<>(unhealthy), keys, randomValue, leaseId);
    }

    private static SelectionInputs fallback(FallbackReason reason, String policyName) {
        return new SelectionInputs(
                Step.fallback(reason).withAttribute(Step.ATTR_POLICY, policyName), null, null, null, 0, null);
    }

    /** The Step to return instead of calling Redis; null when the call can be made. */
    public Step fallback() {
        return fallback;
    }

    public Set<String> healthy() {
        return healthy;
    }

    public List<String> healthyHosts() {
        return healthyHosts;
    }

    public List<String> unhealthyHosts() {
        return unhealthyHosts;
    }

    public RedisKeys keys() {
        return keys;
    }

    public int randomValue() {
        return randomValue;
    }

    public String leaseId() {
        return leaseId;
    }

    private static Set<String> addresses(List<Endpoint> endpoints) {
        Set<String> out = new LinkedHashSet<>();
        for (Endpoint endpoint : endpoints) {
            out.add(endpoint.address());
        }
        return out;
    }

    private static boolean isBlank(String value) {
        return value == null || value.isEmpty();
    }
}
