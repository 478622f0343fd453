package io.ailb.lb.policy.clustermetrics;

import io.ailb.lb.redis.LuaScript;

/** The scripts of this package's resources, embedded at build time as {@link LuaSources}. */
public final class ClusterMetricsScripts {
    /** cluster_select.lua: choose a service by score and global in-flight count, count it under a lease. */
    public static final LuaScript SELECT = new LuaScript("cluster_select", LuaSources.CLUSTER_SELECT);

    private ClusterMetricsScripts() {}
}
