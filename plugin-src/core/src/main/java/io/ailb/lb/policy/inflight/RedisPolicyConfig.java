package io.ailb.lb.policy.inflight;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.ConfigView;
import io.ailb.lb.redis.RedisTarget;

/**
 * The config every policy that counts requests in flight in Redis reads alike (global_least_request, prefix_cache,
 * cache_aware): the Redis target and the counting settings, since they share one in-flight hash per route and cluster.
 */
public final class RedisPolicyConfig {
    private static final int DEFAULT_CLEAN_INTERVAL_MINUTES = 60;
    /** A year; keeps the seconds arithmetic far from overflow. */
    private static final int MAX_CLEAN_INTERVAL_MINUTES = 525_600;
    /** The in-flight hash outlives idle periods of an hour, and at least two clean intervals. */
    private static final int MIN_INFLIGHT_TTL_SECONDS = 3600;
    /** The longest expected request: a count still held this long is given back (lease expiry). */
    private static final int DEFAULT_LEASE_TTL_SECONDS = 600;
    /** A year; keeps the lease expiry arithmetic far from overflow. */
    private static final int MAX_LEASE_TTL_SECONDS = 31_536_000;
    private static final int DEFAULT_KEY_TTL_SECONDS = 1800;
    /** What select.lua gets as prefix key TTL when the policy sends no prefix keys (it must be positive). */
    private static final int UNUSED_KEY_TTL_SECONDS = 1;

    private final RedisTarget target;
    private final InflightSelection.Settings settings;

    private RedisPolicyConfig(RedisTarget target, InflightSelection.Settings settings) {
        this.target = target;
        this.settings = settings;
    }

    /** For a policy without prefix keys: redisKeyTTL is not one of its fields. */
    public static RedisPolicyConfig withoutPrefixKeys(ConfigView config) throws ConfigException {
        return read(config, false);
    }

    /** For a policy that keeps prefix keys (prefix_cache) or block keys (cache_aware): redisKeyTTL is their TTL. */
    public static RedisPolicyConfig withPrefixKeys(ConfigView config) throws ConfigException {
        return read(config, true);
    }

    private static RedisPolicyConfig read(ConfigView config, boolean prefixKeys) throws ConfigException {
        RedisTarget target = RedisTarget.fromConfig(config);
        int keyTtl = prefixKeys
                ? config.integer("redisKeyTTL", DEFAULT_KEY_TTL_SECONDS, 1, Integer.MAX_VALUE)
                : UNUSED_KEY_TTL_SECONDS;
        int maxRequestCount = config.integer("maxRequestCount", 0, 0, Integer.MAX_VALUE);
        int cleanMinutes = config.integer("cleanInterval", DEFAULT_CLEAN_INTERVAL_MINUTES, 0,
                MAX_CLEAN_INTERVAL_MINUTES);
        int leaseTtl = config.integer("leaseTTL", DEFAULT_LEASE_TTL_SECONDS, 1, MAX_LEASE_TTL_SECONDS);
        int inflightTtl = Math.max(MIN_INFLIGHT_TTL_SECONDS, 2 * 60 * cleanMinutes);
        return new RedisPolicyConfig(target,
                new InflightSelection.Settings(maxRequestCount, cleanMinutes * 60, inflightTtl, keyTtl, leaseTtl));
    }

    public RedisTarget target() {
        return target;
    }

    public InflightSelection.Settings settings() {
        return settings;
    }
}
