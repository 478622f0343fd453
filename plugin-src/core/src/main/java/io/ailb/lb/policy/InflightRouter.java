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

/**
 * The Redis round trip shared by global_least_request and prefix_cache: one select.lua call, one release.
 *
 * <p>Each call carries a fresh lease id, and the REDIS Step itself carries the release of that lease: the flow sends it
 * once at stream end whatever the call's outcome — a routed request, a timeout or reset after Redis may have run the
 * script, an error reply, a 429 (no lease was written: the release changes nothing). The Steps built from the reply
 * carry no release of their own, so the lease is released exactly once.
 */
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
        String leaseId = InflightSelection.leaseId(ctx.random().nextLong());
        return Step.redis(target,
                InflightSelection.command(keys, prefixHashes, new ArrayList<>(healthy), new ArrayList<>(unhealthy),
                        settings, randomValue, leaseId),
                reply -> onReply(reply, healthy, reportCacheHit))
                .withAttribute(Step.ATTR_POLICY, policyName)
                .withRelease(target, InflightSelection.release(keys, leaseId));
    }

    private Step onReply(RespValue reply, Set<String> healthy, boolean reportCacheHit) {
        InflightSelection selection = InflightSelection.parse(reply);
        if (selection == null) {
            return Step.fallback(FallbackReason.REDIS_BAD_REPLY).withAttribute(Step.ATTR_POLICY, policyName);
        }
        if (selection.full()) {
            return Step.reject(LIMIT_STATUS, LIMIT_BODY).withAttribute(Step.ATTR_POLICY, policyName)
                    .withAttribute(Step.ATTR_INFLIGHT, Long.toString(selection.count()));
        }
        // The script counted the host in flight under the lease; the REDIS Step's release gives it back.
        Step step = healthy.contains(selection.host())
                ? Step.route(selection.host())
                : Step.fallback(FallbackReason.UNKNOWN_HOST);
        step = step.withAttribute(Step.ATTR_POLICY, policyName)
                .withAttribute(Step.ATTR_INFLIGHT, Long.toString(selection.count()));
        if (reportCacheHit) {
            step = step.withAttribute(Step.ATTR_CACHE_HIT, Boolean.toString(selection.depth() > 0))
                    .withAttribute(Step.ATTR_PREFIX_LENGTH, Integer.toString(selection.depth()));
        }
        return step;
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
