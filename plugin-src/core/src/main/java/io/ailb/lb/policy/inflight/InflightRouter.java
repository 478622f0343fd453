package io.ailb.lb.policy.inflight;

import io.ailb.lb.policy.FallbackReason;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.policy.Step;
import io.ailb.lb.redis.RedisTarget;
import java.util.List;
import java.util.Set;

/**
 * The Redis round trip shared by global_least_request and prefix_cache: one select.lua call, one release.
 *
 * <p>Each call carries a fresh lease id, and the REDIS Step itself carries the release of that lease: the flow sends it
 * once at stream end whatever the call's outcome — a routed request, a timeout or reset after Redis may have run the
 * script, an error reply, a 429 (no lease was written: the release changes nothing). The Steps built from the reply
 * carry no release of their own, so the lease is released exactly once. cache_aware makes its cache_aware.lua round
 * trip the same way.
 */
public final class InflightRouter {
    static final String LIMIT_BODY = "Exceeded maximum request limit from ai-load-balancer.";
    static final int LIMIT_STATUS = 429;

    private final String policyName;
    private final RedisTarget target;
    private final InflightSelection.Settings settings;

    public InflightRouter(String policyName, RedisPolicyConfig config) {
        this.policyName = policyName;
        this.target = config.target();
        this.settings = config.settings();
    }

    public RedisTarget target() {
        return target;
    }

    /** {@code prefixHashes} empty = least in flight only. */
    public Step select(RequestContext ctx, List<String> prefixHashes, boolean reportCacheHit) {
        SelectionInputs in = SelectionInputs.of(ctx, policyName);
        if (in.fallback() != null) {
            return in.fallback();
        }
        return Step.redis(
                        target,
                        InflightSelection.command(
                                in.keys(),
                                prefixHashes,
                                in.healthyHosts(),
                                in.unhealthyHosts(),
                                settings,
                                in.randomValue(),
                                in.leaseId()),
                        reply -> stepFor(policyName, InflightSelection.parse(reply), in.healthy(), reportCacheHit))
                .withAttribute(Step.ATTR_POLICY, policyName)
                .withRelease(target, InflightSelection.release(in.keys(), in.leaseId()));
    }

    /**
     * The Step a select.lua or cache_aware.lua reply leads to ({@code selection} null: the reply was malformed). A
     * Step that routes, or falls back on an unknown host, takes further attributes; the others are final.
     */
    public static Step stepFor(
            String policyName, SelectionReply selection, Set<String> healthy, boolean reportCacheHit) {
        if (selection == null) {
            return Step.fallback(FallbackReason.REDIS_BAD_REPLY).withAttribute(Step.ATTR_POLICY, policyName);
        }
        if (selection.full()) {
            return Step.reject(LIMIT_STATUS, LIMIT_BODY)
                    .withAttribute(Step.ATTR_POLICY, policyName)
                    .withAttribute(Step.ATTR_INFLIGHT, Long.toString(selection.count()));
        }
        // The script counted the host in flight under the lease (cache_aware.lua with the request's work too); the
        // REDIS Step's release gives that back.
        Step step = healthy.contains(selection.host())
                ? Step.route(selection.host())
                : Step.fallback(FallbackReason.UNKNOWN_HOST);
        step = step.withAttribute(Step.ATTR_POLICY, policyName)
                .withAttribute(Step.ATTR_INFLIGHT, Long.toString(selection.count()));
        if (reportCacheHit) {
            step = step.withPrefixMatch(selection.depth());
        }
        return step;
    }
}
