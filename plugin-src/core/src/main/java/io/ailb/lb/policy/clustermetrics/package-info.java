/**
 * {@code cluster_metrics} (lb_type cluster): chooses one of several services of a model by what the gateway measured
 * of their responses — in-flight requests, time to first token, total latency, errors — and optionally by the requests
 * in flight from every gateway, counted in Redis.
 */
package io.ailb.lb.policy.clustermetrics;
