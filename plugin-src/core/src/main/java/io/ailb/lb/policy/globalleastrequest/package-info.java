/**
 * {@code global_least_request}: the fewest requests in flight across all gateways, counted in Redis by the shared
 * select.lua of {@code io.ailb.lb.policy.inflight} (called without prefix keys).
 */
package io.ailb.lb.policy.globalleastrequest;
