package io.ailb.lb.redis;

/** The Lua scripts of src/main/resources/io/ailb/lb/redis, embedded at build time as {@link LuaSources}. */
public final class RedisScripts {
    /** select.lua: choose a host (prefix walk, then least in flight), count it in flight. */
    public static final LuaScript SELECT = new LuaScript("select", LuaSources.SELECT);
    /** release.lua: take a lease and give its host's in-flight count back (once), never below zero. */
    public static final LuaScript RELEASE = new LuaScript("release", LuaSources.RELEASE);

    /** cache_aware.lua: least estimated cost (uncached prefill + in-flight work), count and add the work. */
    public static final LuaScript CACHE_AWARE = new LuaScript("cache_aware", LuaSources.CACHE_AWARE);
    /** cache_aware_release.lua: take a cache_aware lease, give back its count and exactly its work. */
    public static final LuaScript CACHE_AWARE_RELEASE = new LuaScript("cache_aware_release",
            LuaSources.CACHE_AWARE_RELEASE);

    private RedisScripts() {
    }
}
