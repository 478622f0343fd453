package io.ailb.proxywasm;

import io.ailb.codec.map.ProxyMaps;
import io.ailb.proxywasm.internal.Vm;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/** Higress' upstream extension: the hosts of the current route's cluster, and choosing one of them. */
public final class Upstreams {
    /** The host map of the last call and its decoded list: the hosts and their info rarely change between requests. */
    private static byte[] lastMap = new byte[0];

    private static List<UpstreamHost> lastHosts = Collections.emptyList();

    private Upstreams() {}

    /**
     * {@code proxy_get_upstream_hosts}, in the host's order; empty when the cluster has none. Unmodifiable, and the
     * same list instance for as long as the host reports the same hosts and info, so callers may keep what they derive
     * from it until the instance changes.
     */
    public static List<UpstreamHost> hosts() {
        byte[] map = Vm.abi().getUpstreamHosts();
        if (!Arrays.equals(map, lastMap)) {
            List<Map.Entry<String, String>> pairs = ProxyMaps.decode(map, 0, map.length);
            List<UpstreamHost> hosts = new ArrayList<>(pairs.size());
            for (Map.Entry<String, String> pair : pairs) {
                hosts.add(new UpstreamHost(pair.getKey(), pair.getValue()));
            }
            lastHosts = Collections.unmodifiableList(hosts);
            lastMap = map;
        }
        return lastHosts;
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
