package io.ailb.lb.policy;

import io.ailb.codec.resp.RespValue;
import io.ailb.lb.model.Endpoint;
import io.ailb.lb.redis.InflightSelection;
import io.ailb.lb.redis.RedisKeys;
import io.ailb.lb.redis.RedisTarget;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The Redis round trip shared by global_least_request and prefix_cache: one select.lua call, one release. */
final class InflightRouter {
    static final String LIMIT_BODY = "Exceeded maximum request limit from ai-load-balancer.";
    static final int LIMIT_STATUS = 429;

    private final String policyName;
    private final RedisTarget target;
    private final InflightSelection.Settings settings;

    InflightRouter(String policyName, RedisTarget target, InflightSelection.Settings settings) {
        this.policyName = policyName;
        this.target = target;
        this.settings = settings;
    }

    RedisTarget target() {
        return target;
    }

    /** {@code prefixHashes} empty = least in flight only. */
    Step select(RequestContext ctx, List<String> prefixHashes, boolean reportCacheHit) {
        Set<String> healthy = addresses(ctx.healthy());
        if (healthy.isEmpty()) {
            return Step.fallback(FallbackReason.NO_HEALTHY_HOST).withAttribute(Step.ATTR_POLICY, policyName);
        }
        if (isBlank(ctx.routeName()) || isBlank(ctx.clusterName())) {
            return Step.fallback(FallbackReason.NO_ROUTE_INFO).withAttribute(Step.ATTR_POLICY, policyName);
        }
        Set<String> unhealthy = addresses(ctx.endpoints());
        unhealthy.removeAll(healthy);
        RedisKeys keys = RedisKeys.of(ctx.routeName(), ctx.clusterName());
        int randomValue = ctx.random().nextInt(InflightSelection.randomBound());
        return Step.redis(target,
                InflightSelection.command(keys, prefixHashes, new ArrayList<>(healthy), new ArrayList<>(unhealthy),
                        settings, randomValue),
                reply -> onReply(reply, keys, healthy, reportCacheHit)).withAttribute(Step.ATTR_POLICY, policyName);
    }

    private Step onReply(RespValue reply, RedisKeys keys, Set<String> healthy, boolean reportCacheHit) {
        InflightSelection selection = InflightSelection.parse(reply);
        if (selection == null) {
            return Step.fallback(FallbackReason.REDIS_BAD_REPLY).withAttribute(Step.ATTR_POLICY, policyName);
        }
        if (selection.full()) {
            return Step.reject(LIMIT_STATUS, LIMIT_BODY).withAttribute(Step.ATTR_POLICY, policyName)
                    .withAttribute(Step.ATTR_INFLIGHT, Long.toString(selection.count()));
        }
        // The script counted the host in flight: whatever happens next must give that back.
        Step step = healthy.contains(selection.host())
                ? Step.route(selection.host())
                : Step.fallback(FallbackReason.UNKNOWN_HOST);
        step = step.withAttribute(Step.ATTR_POLICY, policyName)
                .withAttribute(Step.ATTR_INFLIGHT, Long.toString(selection.count()));
        if (reportCacheHit) {
            step = step.withAttribute(Step.ATTR_CACHE_HIT, Boolean.toString(selection.depth() > 0))
                    .withAttribute(Step.ATTR_PREFIX_LENGTH, Integer.toString(selection.depth()));
        }
        return step.withRelease(target, InflightSelection.release(keys, selection.host()));
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
