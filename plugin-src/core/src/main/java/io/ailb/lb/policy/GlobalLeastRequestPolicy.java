package io.ailb.lb.policy;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.ConfigView;
import io.ailb.lb.redis.InflightSelection;
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
    static final int DEFAULT_CLEAN_INTERVAL_MINUTES = 60;
    /** A year; keeps the seconds arithmetic far from overflow. */
    static final int MAX_CLEAN_INTERVAL_MINUTES = 525_600;
    /** The in-flight hash outlives idle periods of an hour, and at least two clean intervals. */
    static final int MIN_INFLIGHT_TTL_SECONDS = 3600;
    /** The longest expected request: a count still held this long is given back (lease expiry). */
    static final int DEFAULT_LEASE_TTL_SECONDS = 600;
    /** A year; keeps the lease expiry arithmetic far from overflow. */
    static final int MAX_LEASE_TTL_SECONDS = 31_536_000;

    private final InflightRouter router;

    public GlobalLeastRequestPolicy(ConfigView config) throws ConfigException {
        RedisTarget target = RedisTarget.fromConfig(config);
        int maxRequestCount = config.integer("maxRequestCount", 0, 0, Integer.MAX_VALUE);
        int cleanMinutes = cleanIntervalMinutes(config);
        int leaseTtl = leaseTtlSeconds(config);
        // Accepted for Higress compatibility; decisions are returned as Step attributes instead of debug logs.
        config.bool("enableDetailLog", true);
        this.router = new InflightRouter(NAME, target,
                new InflightSelection.Settings(maxRequestCount, cleanMinutes * 60, inflightTtl(cleanMinutes), 1,
                        leaseTtl));
    }

    static int cleanIntervalMinutes(ConfigView config) throws ConfigException {
        return config.integer("cleanInterval", DEFAULT_CLEAN_INTERVAL_MINUTES, 0, MAX_CLEAN_INTERVAL_MINUTES);
    }

    static int leaseTtlSeconds(ConfigView config) throws ConfigException {
        return config.integer("leaseTTL", DEFAULT_LEASE_TTL_SECONDS, 1, MAX_LEASE_TTL_SECONDS);
    }

    static int inflightTtl(int cleanIntervalMinutes) {
        return Math.max(MIN_INFLIGHT_TTL_SECONDS, 2 * 60 * cleanIntervalMinutes);
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
