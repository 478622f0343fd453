package io.ailb.lb.policy.globalleastrequest;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.ConfigField;
import io.ailb.lb.config.ConfigView;
import io.ailb.lb.policy.LoadBalancingPolicy;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.policy.Step;
import io.ailb.lb.policy.inflight.InflightRouter;
import io.ailb.lb.policy.inflight.RedisPolicyConfig;
import io.ailb.lb.redis.RedisTarget;
import java.util.Collections;
import java.util.List;

/**
 * {@code global_least_request}: the healthy host with the fewest in-flight requests across all gateways, counted in
 * Redis (one select.lua round trip; released with release.lua when the stream ends, by the request's lease, which
 * also expires after {@code leaseTTL} seconds should the release never come). Needs no body, so it selects at
 * the request headers and bodyless requests never hang.
 */
public final class GlobalLeastRequestPolicy implements LoadBalancingPolicy {
    static final String NAME = "global_least_request";
    /** The lb_config fields this policy reads. */
    public static final List<ConfigField> FIELDS =
            ConfigField.join(RedisPolicyConfig.FIELDS_WITHOUT_PREFIX_KEYS, RedisPolicyConfig.ENABLE_DETAIL_LOG);

    private final InflightRouter router;

    public GlobalLeastRequestPolicy(ConfigView config) throws ConfigException {
        this.router = new InflightRouter(NAME, RedisPolicyConfig.withoutPrefixKeys(config));
        RedisPolicyConfig.ENABLE_DETAIL_LOG.read(config);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean readsBody() {
        return false;
    }

    @Override
    public Step select(RequestContext ctx) {
        return router.select(ctx, Collections.emptyList(), false);
    }

    @Override
    public List<RedisTarget> redisTargets() {
        return Collections.singletonList(router.target());
    }
}
