/** The {@code rate_limit} window shared by endpoint_metrics and cluster_metrics. */
package io.ailb.lb.policy.ratelimit;
