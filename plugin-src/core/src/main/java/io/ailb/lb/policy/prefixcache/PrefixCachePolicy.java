package io.ailb.lb.policy.prefixcache;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.ConfigField;
import io.ailb.lb.config.ConfigView;
import io.ailb.lb.policy.LoadBalancingPolicy;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.policy.Step;
import io.ailb.lb.policy.inflight.InflightRouter;
import io.ailb.lb.policy.inflight.RedisPolicyConfig;
import io.ailb.lb.redis.RedisTarget;
import io.ailb.lb.request.RequestInfo;
import java.util.Collections;
import java.util.List;

/**
 * {@code prefix_cache}: send a conversation to the host that served its longest known prefix (so the engine's KV cache
 * is reused), else to the least loaded host; the path of the conversation then points at the chosen host. One
 * select.lua round trip; shares the in-flight hash with global_least_request on the same route and cluster.
 *
 * <p>A request without usable prefix hashes (no body, unparseable body, no messages) is routed exactly like
 * global_least_request, instead of the Go plugin's silent default-LB fallback.
 */
public final class PrefixCachePolicy implements LoadBalancingPolicy {
    static final String NAME = "prefix_cache";
    /** The lb_config fields this policy reads. */
    public static final List<ConfigField> FIELDS = RedisPolicyConfig.FIELDS_WITH_PREFIX_KEYS;

    private final InflightRouter router;

    public PrefixCachePolicy(ConfigView config) throws ConfigException {
        // maxRequestCount, cleanInterval and leaseTTL are not Higress prefix_cache fields, but the in-flight hash is
        // the same one global_least_request uses.
        this.router = new InflightRouter(NAME, RedisPolicyConfig.withPrefixKeys(config));
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean readsBody() {
        return true;
    }

    @Override
    public Step select(RequestContext ctx) {
        RequestInfo request = ctx.request();
        List<String> hashes = request != null && request.parsed() ? request.prefixHashes() : Collections.emptyList();
        return router.select(ctx, hashes, true);
    }

    @Override
    public List<RedisTarget> redisTargets() {
        return Collections.singletonList(router.target());
    }
}
