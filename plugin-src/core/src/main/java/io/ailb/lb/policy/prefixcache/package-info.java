/**
 * {@code prefix_cache}: the host that served the conversation's longest known prefix, else the least loaded; one
 * select.lua call of {@code io.ailb.lb.policy.inflight} with the request's prefix keys.
 */
package io.ailb.lb.policy.prefixcache;
