package io.ailb.sim.cluster;

import java.util.ArrayList;
import java.util.List;

/**
 * Plugin configurations (lb_type cluster) for a {@link ServiceLayout}, by short name: a {@code cluster_metrics}
 * mode ({@code LeastBusy}, {@code LeastFirstTokenLatency}, {@code LeastTotalLatency}, {@code AdaptiveScore},
 * {@code Random}), {@code AdaptiveScore+global} (in-flight counts shared in Redis), {@code cluster_hash} (weights
 * proportional to capacity, hashed on the per-session header) and {@code cluster_metrics} (no mode: its default), each
 * with its defaults otherwise.
 */
public final class ClusterConfigs {
    public static final List<String> MODES =
            List.of("LeastBusy", "LeastFirstTokenLatency", "LeastTotalLatency", "AdaptiveScore", "Random");
    public static final String ADAPTIVE_GLOBAL = "AdaptiveScore+global";
    public static final String CLUSTER_HASH = "cluster_hash";
    public static final String CLUSTER_METRICS = "cluster_metrics";

    private ClusterConfigs() {}

    /** Whether {@link #configFor} knows {@code name}. */
    public static boolean knows(String name) {
        return MODES.contains(name)
                || name.equals(ADAPTIVE_GLOBAL)
                || name.equals(CLUSTER_HASH)
                || name.equals(CLUSTER_METRICS);
    }

    /**
     * The configuration JSON for {@code name}; {@code redisFqdn}/{@code redisPort} name the Redis service for
     * {@link #ADAPTIVE_GLOBAL}.
     */
    public static String configFor(String name, ServiceLayout layout, String redisFqdn, int redisPort) {
        if (name.equals(CLUSTER_HASH)) {
            List<Integer> weights = layout.capacityPercents();
            List<String> clusters = new ArrayList<>();
            for (int i = 0; i < layout.size(); i++) {
                clusters.add(
                        "{\"cluster\":" + quoted(layout.service(i).cluster()) + ",\"weight\":" + weights.get(i) + "}");
            }
            return "{\"lb_type\":\"cluster\",\"lb_policy\":\"cluster_hash\",\"lb_config\":{\"clusters\":["
                    + String.join(",", clusters) + "]}}";
        }
        boolean global = name.equals(ADAPTIVE_GLOBAL);
        if (!knows(name)) {
            throw new IllegalArgumentException("unknown cluster policy " + name + " (known: " + String.join(", ", MODES)
                    + ", " + ADAPTIVE_GLOBAL + ", " + CLUSTER_HASH + ", " + CLUSTER_METRICS + ")");
        }
        List<String> services = new ArrayList<>();
        for (String cluster : layout.clusters()) {
            services.add(quoted(cluster));
        }
        String mode = name.equals(CLUSTER_METRICS) ? "" : "\"mode\":\"" + (global ? "AdaptiveScore" : name) + "\",";
        String redis = global
                ? ",\"global_inflight_enabled\":true,\"serviceFQDN\":" + quoted(redisFqdn) + ",\"servicePort\":"
                        + redisPort
                : "";
        return "{\"lb_type\":\"cluster\",\"lb_policy\":\"cluster_metrics\",\"lb_config\":{" + mode
                + "\"service_list\":[" + String.join(",", services) + "]" + redis + "}}";
    }

    /** Cluster names hold only {@code |}, letters, digits, dots and dashes: no escaping needed. */
    private static String quoted(String value) {
        return "\"" + value + "\"";
    }
}
