package io.ailb.lb.policy.inflight;

import io.ailb.lb.redis.LuaResources;
import io.ailb.lb.redis.LuaScript;
import io.ailb.lb.redis.RedisCommand;
import io.ailb.lb.redis.RedisKeys;
import io.ailb.lb.util.Rng;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/** The Lua scripts assembled from the resources, and select.lua calls built with the production layout. */
final class Scripts {
    static final LuaScript SELECT = fromResource("select");
    static final LuaScript RELEASE = fromResource("release");
    static final RedisKeys KEYS = RedisKeys.of("route-a", "outbound|80||llm.dns");

    private Scripts() {}

    static LuaScript fromResource(String name) {
        return LuaResources.script(Scripts.class, name);
    }

    /** Call parameters with the given cap and clean interval; in-flight TTL 3600 s, prefix TTL 1800 s, lease TTL 600 s. */
    static InflightSelection.Settings settings(int maxRequestCount, int cleanIntervalSeconds) {
        return new InflightSelection.Settings(maxRequestCount, cleanIntervalSeconds, 3600, 1800, LEASE_TTL);
    }

    static final int LEASE_TTL = 600;

    private static long leases;

    /** A lease id not used before in this JVM. */
    static synchronized String nextLease() {
        return InflightSelection.leaseId(0x1000_0000_0000L + leases++);
    }

    static RedisCommand select(
            RedisKeys keys,
            List<String> prefixHashes,
            List<String> healthy,
            List<String> unhealthy,
            InflightSelection.Settings settings,
            int random,
            String leaseId) {
        RedisCommand production =
                InflightSelection.command(keys, prefixHashes, healthy, unhealthy, settings, random, leaseId);
        return RedisCommand.script(SELECT, production.keys(), production.args());
    }

    /** A select.lua call under a fresh lease. */
    static RedisCommand select(
            RedisKeys keys,
            List<String> prefixHashes,
            List<String> healthy,
            List<String> unhealthy,
            InflightSelection.Settings settings,
            int random) {
        return select(keys, prefixHashes, healthy, unhealthy, settings, random, nextLease());
    }

    static RedisCommand select(List<String> healthy) {
        return select(healthy, nextLease());
    }

    static RedisCommand select(List<String> healthy, String leaseId) {
        return select(
                KEYS,
                Collections.emptyList(),
                healthy,
                Collections.emptyList(),
                settings(0, 3600),
                new Rng(1).nextInt(InflightSelection.randomBound()),
                leaseId);
    }

    static RedisCommand release(RedisKeys keys, String leaseId) {
        RedisCommand production = InflightSelection.release(keys, leaseId);
        return RedisCommand.script(RELEASE, production.keys(), production.args());
    }

    static List<String> list(String... values) {
        return Arrays.asList(values);
    }
}
