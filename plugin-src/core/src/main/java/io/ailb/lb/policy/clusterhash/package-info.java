/**
 * {@code cluster_hash} (lb_type cluster): a header's value picks a service by weight, with the Go plugin's exact slot
 * mapping, so a migrating user stays on the same service.
 */
package io.ailb.lb.policy.clusterhash;
