/**
 * What the Redis policies share: requests counted in flight per host under leases that heal when never released.
 * Holds select.lua and release.lua (used by {@code global_least_request} and {@code prefix_cache}), the Lua parts every
 * lease script is assembled from at build time ({@code _*.lua}), the call and reply formats, the common Redis config
 * and the round trip of a selection script; {@code cache_aware} builds on the same parts.
 */
package io.ailb.lb.policy.inflight;
