package io.ailb.lb.policy.inflight;

import io.ailb.lb.config.BoolField;
import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.ConfigField;
import io.ailb.lb.config.ConfigView;
import io.ailb.lb.config.IntField;
import io.ailb.lb.redis.RedisTarget;
import java.util.List;

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
    /** A year; keeps the lease expiry arithmetic far from overflow. */
    private static final int MAX_LEASE_TTL_SECONDS = 31_536_000;
    /** What select.lua gets as prefix key TTL when the policy sends no prefix keys (it must be positive). */
    private static final int UNUSED_KEY_TTL_SECONDS = 1;

    public static final IntField MAX_REQUEST_COUNT = IntField.optional(
            "maxRequestCount",
            0,
            0,
            Integer.MAX_VALUE,
            "",
            "per-instance in-flight cap, 0 = off; when even the least loaded instance is at the cap the request "
                    + "gets a local 429");
    public static final IntField CLEAN_INTERVAL = IntField.optional(
            "cleanInterval",
            60,
            0,
            MAX_CLEAN_INTERVAL_MINUTES,
            "minutes",
            "how often counters of instances that left the service are removed, 0 = at every request");
    /** The longest expected request: a count still held this long is given back (lease expiry). */
    public static final IntField LEASE_TTL = IntField.optional(
            "leaseTTL",
            600,
            1,
            MAX_LEASE_TTL_SECONDS,
            "s",
            "longest expected request; a count still held after this (crashed gateway, lost reply) is given back");

    public static final IntField REDIS_KEY_TTL = IntField.optional(
            "redisKeyTTL",
            1800,
            1,
            Integer.MAX_VALUE,
            "s",
            "how long a conversation prefix stays bound to the instance that served it");
    /** Read by the policies that have it in Higress; decisions are Step attributes instead of debug logs. */
    public static final BoolField ENABLE_DETAIL_LOG = BoolField.optional(
            "enableDetailLog", true, "accepted for Higress compatibility; decisions go to the access log attributes");
    /** The fields {@link #withoutPrefixKeys} reads. */
    public static final List<ConfigField> FIELDS_WITHOUT_PREFIX_KEYS =
            ConfigField.join(RedisTarget.FIELDS, MAX_REQUEST_COUNT, CLEAN_INTERVAL, LEASE_TTL);
    /** The fields {@link #withPrefixKeys} reads. */
    public static final List<ConfigField> FIELDS_WITH_PREFIX_KEYS =
            ConfigField.join(FIELDS_WITHOUT_PREFIX_KEYS, REDIS_KEY_TTL);

    /**
     * The fields {@link #withPrefixKeysAndOptionalRedis} reads: those of {@link #withPrefixKeys}, the Redis service
     * required only when {@code setting} holds.
     */
    public static List<ConfigField> fieldsWithPrefixKeysRedisRequiredWhen(String setting) {
        return ConfigField.join(
                ConfigField.list(
                        RedisTarget.SERVICE_FQDN.requiredWhen(setting),
                        RedisTarget.SERVICE_PORT.requiredWhen(setting),
                        RedisTarget.USERNAME,
                        RedisTarget.PASSWORD,
                        RedisTarget.TIMEOUT,
                        RedisTarget.DATABASE),
                MAX_REQUEST_COUNT,
                CLEAN_INTERVAL,
                LEASE_TTL,
                REDIS_KEY_TTL);
    }

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

    /**
     * As {@link #withPrefixKeys} for a policy that can run without Redis: the target is null unless the service is
     * named (then read, so a typo in it is refused even while unused).
     */
    public static RedisPolicyConfig withPrefixKeysAndOptionalRedis(ConfigView config) throws ConfigException {
        boolean named = config.has(RedisTarget.SERVICE_FQDN.name()) || config.has(RedisTarget.SERVICE_PORT.name());
        return read(config, true, named);
    }

    private static RedisPolicyConfig read(ConfigView config, boolean prefixKeys) throws ConfigException {
        return read(config, prefixKeys, true);
    }

    private static RedisPolicyConfig read(ConfigView config, boolean prefixKeys, boolean readTarget)
            throws ConfigException {
        RedisTarget target = readTarget ? RedisTarget.fromConfig(config) : null;
        int keyTtl = prefixKeys ? REDIS_KEY_TTL.read(config) : UNUSED_KEY_TTL_SECONDS;
        int maxRequestCount = MAX_REQUEST_COUNT.read(config);
        int cleanMinutes = CLEAN_INTERVAL.read(config);
        int leaseTtl = LEASE_TTL.read(config);
        int inflightTtl = Math.max(MIN_INFLIGHT_TTL_SECONDS, 2 * 60 * cleanMinutes);
        return new RedisPolicyConfig(
                target,
                new InflightSelection.Settings(maxRequestCount, cleanMinutes * 60, inflightTtl, keyTtl, leaseTtl));
    }

    /** Null only from {@link #withPrefixKeysAndOptionalRedis} when no Redis service is named. */
    public RedisTarget target() {
        return target;
    }

    public InflightSelection.Settings settings() {
        return settings;
    }
}
