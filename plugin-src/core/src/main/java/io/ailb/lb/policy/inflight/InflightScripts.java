package io.ailb.lb.policy.inflight;

import io.ailb.lb.redis.LuaScript;

/** The scripts of this package's resources, embedded at build time as {@link LuaSources}. */
public final class InflightScripts {
    /** select.lua: choose a host (prefix walk, then least in flight), count it in flight. */
    public static final LuaScript SELECT = new LuaScript("select", LuaSources.SELECT);
    /** release.lua: take a lease and give its host's in-flight count back (once), never below zero. */
    public static final LuaScript RELEASE = new LuaScript("release", LuaSources.RELEASE);

    private InflightScripts() {}
}
