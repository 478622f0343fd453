/**
 * {@code cache_aware}: the least estimated cost (uncached prefill plus in-flight work), decided by its own
 * cache_aware.lua and released by cache_aware_release.lua (resources of this package, assembled with the lease parts of
 * {@code io.ailb.lb.policy.inflight}), with the call and reply format in
 * {@link io.ailb.lb.policy.cacheaware.CacheAwareSelection}.
 */
package io.ailb.lb.policy.cacheaware;
