/**
 * lb_type cluster in the simulator: several services (Envoy clusters) of one model, each a pool of backends of its
 * own speed ({@link io.ailb.sim.cluster.ServiceLayout}); routers choose a service, and inside it the cluster's own
 * load balancer picks the backend ({@link io.ailb.sim.cluster.ServiceRouter}).
 */
package io.ailb.sim.cluster;
