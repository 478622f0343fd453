package io.ailb.lb.flow;

import io.ailb.lb.policy.FallbackReason;

/** Names of the metrics the flow reports; Envoy shows them with its {@code wasmcustom.} prefix. */
public final class FlowMetrics {
    /** Requests pinned to a host, per policy: {@code ailb.routed.<policy>}. */
    public static String routed(String policy) {
        return "ailb.routed." + policy;
    }

    /** Requests answered locally (e.g. 429 over maxRequestCount), per policy. */
    public static String rejected(String policy) {
        return "ailb.rejected." + policy;
    }

    /** Requests left to the cluster's own load balancer, per reason: {@code ailb.fallback.redis_error}. */
    public static String fallback(FallbackReason reason) {
        return "ailb.fallback." + reason.name().toLowerCase();
    }

    /** Requests handed from a failing policy to the rule's {@code fallback_policy}. */
    public static final String FALLBACK_POLICY_USED = "ailb.fallback_policy_used";
    /** The gateway refused the chosen host. */
    public static final String OVERRIDE_FAILED = "ailb.override_failed";
    /** Redis calls that failed or answered with an error. */
    public static final String REDIS_ERRORS = "ailb.redis.errors";
    /** Histogram: milliseconds from sending a decision's Redis call to its reply. */
    public static final String REDIS_LATENCY_MS = "ailb.redis.latency_ms";
    /** Histogram: how many conversation blocks matched a stored prefix (prefix_cache). */
    public static final String PREFIX_MATCH_DEPTH = "ailb.prefix.match_depth";
    /** lb_type cluster: the cluster header could not be written; the route's own cluster served. */
    public static final String CLUSTER_HEADER_FAILED = "ailb.cluster.header_failed";
    /**
     * lb_type cluster: the response came from another cluster than the one written into the header (the route does
     * not select its cluster by the header).
     */
    public static final String CLUSTER_HEADER_IGNORED = "ailb.cluster.header_ignored";
    /** Release commands sent (in-flight counts given back). */
    public static final String RELEASES_SENT = "ailb.releases_sent";
    /**
     * Histogram: milliseconds from the request's headers reaching the plugin to its decision (route, fallback or local
     * reply); includes waiting for the body and the Redis round trip.
     */
    public static final String DECISION_TIME_MS = "ailb.decision_time_ms";

    private FlowMetrics() {}
}
