/**
 * What the Redis policies share: requests counted in flight per host under leases that heal when never released.
 * Holds select.lua and release.lua (used by {@code global_least_request} and {@code prefix_cache}), their call and
 * reply formats, the common Redis config and the round trip of a selection script; {@code cache_aware} builds on them.
 */
package io.ailb.lb.policy.inflight;
