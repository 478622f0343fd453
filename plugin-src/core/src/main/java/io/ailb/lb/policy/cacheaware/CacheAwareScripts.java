package io.ailb.lb.policy.cacheaware;

import io.ailb.lb.redis.LuaScript;

/** The scripts of this package's resources, embedded at build time as {@link LuaSources}. */
public final class CacheAwareScripts {
    /** cache_aware.lua: least estimated time to first token; count the request and queue its uncached prefill. */
    public static final LuaScript CACHE_AWARE = new LuaScript("cache_aware", LuaSources.CACHE_AWARE);
    /** cache_aware_first_token.lua: the request's prefill is done, take its tokens off the host's queue. */
    public static final LuaScript CACHE_AWARE_FIRST_TOKEN =
            new LuaScript("cache_aware_first_token", LuaSources.CACHE_AWARE_FIRST_TOKEN);
    /** cache_aware_release.lua: take a cache_aware lease, give back its count and the prefill still queued. */
    public static final LuaScript CACHE_AWARE_RELEASE =
            new LuaScript("cache_aware_release", LuaSources.CACHE_AWARE_RELEASE);

    private CacheAwareScripts() {}
}
