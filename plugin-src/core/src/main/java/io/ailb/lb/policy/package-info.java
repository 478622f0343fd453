/**
 * The policy contract: {@link io.ailb.lb.policy.LoadBalancingPolicy}, the {@link io.ailb.lb.policy.Step} it answers
 * with, its {@link io.ailb.lb.policy.RequestContext}, fallback reasons, scrape requests, and the
 * {@link io.ailb.lb.policy.PolicyRegistry} (one line per policy). Each policy lives in its own sub-package with its
 * reply parser, scripts and tests; {@code inflight} is the Redis in-flight counting those with Redis share.
 */
package io.ailb.lb.policy;
