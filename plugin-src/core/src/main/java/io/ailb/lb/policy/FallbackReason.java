package io.ailb.lb.policy;

/** Why a policy let the cluster's default load balancer decide; the shell counts fallbacks by reason. */
public enum FallbackReason {
    /** The cluster has no healthy host (or the host list is empty). */
    NO_HEALTHY_HOST,
    /** The policy needs the body and the request has none. */
    NO_BODY,
    /** The body is not the JSON the policy needs. */
    UNPARSEABLE_BODY,
    /** The route or cluster name is unknown, so no per-route state can be addressed. */
    NO_ROUTE_INFO,
    /** No eligible host has usable metrics. */
    NO_METRICS,
    /** Redis failed: network status, error reply, timeout, undecodable reply, client not ready (set by the shell). */
    REDIS_ERROR,
    /** Redis answered, but not in the shape the script returns. */
    REDIS_BAD_REPLY,
    /** The policy chose a host that is no longer in the cluster's host list. */
    UNKNOWN_HOST,
    /** Policy code threw (set by the shell). */
    INTERNAL_ERROR
}
