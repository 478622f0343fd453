package io.ailb.proxywasm;

import io.ailb.proxywasm.internal.Vm;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Higress' upstream extension: the hosts of the current route's cluster, and choosing one of them. */
public final class Upstreams {
    private Upstreams() {
    }

    /** {@code proxy_get_upstream_hosts}, in the host's order; empty when the cluster has none. */
    public static List<UpstreamHost> hosts() {
        List<Map.Entry<String, String>> pairs = Vm.abi().getUpstreamHosts();
        List<UpstreamHost> hosts = new ArrayList<>(pairs.size());
        for (Map.Entry<String, String> pair : pairs) {
            hosts.add(new UpstreamHost(pair.getKey(), pair.getValue()));
        }
        return hosts;
    }

    /**
     * {@code proxy_set_upstream_override_host}: route this request to {@code address}. Must happen before the request
     * headers reach the router (hold them with {@link HeaderStatus#STOP_ITERATION}); an unknown or unhealthy address
     * falls back to the cluster's load balancer.
     */
    public static void setOverrideHost(String address) {
        Vm.abi().setUpstreamOverrideHost(address);
    }
}
