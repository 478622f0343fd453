/**
 * {@code cache_aware}: the least estimated cost (uncached prefill plus in-flight work), decided by its own
 * cache_aware.lua and released by cache_aware_release.lua (resources of this package), with the call and reply
 * format in {@link io.ailb.lb.policy.cacheaware.CacheAwareSelection}. It counts requests in flight like the
 * {@code io.ailb.lb.policy.inflight} policies and reuses their settings, lease ids and reply shape.
 */
package io.ailb.lb.policy.cacheaware;
