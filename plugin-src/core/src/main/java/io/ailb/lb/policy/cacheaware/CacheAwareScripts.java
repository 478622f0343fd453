package io.ailb.lb.policy.cacheaware;

import io.ailb.lb.redis.LuaScript;

/** The scripts of this package's resources, embedded at build time as {@link LuaSources}. */
public final class CacheAwareScripts {
    /** cache_aware.lua: least estimated cost (uncached prefill + in-flight work), count and add the work. */
    public static final LuaScript CACHE_AWARE = new LuaScript("cache_aware", LuaSources.CACHE_AWARE);
    /** cache_aware_release.lua: take a cache_aware lease, give back its count and exactly its work. */
    public static final LuaScript CACHE_AWARE_RELEASE =
            new LuaScript("cache_aware_release", LuaSources.CACHE_AWARE_RELEASE);

    private CacheAwareScripts() {}
}
