package io.ailb.lb.policy.clusterhash;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.ConfigField;
import io.ailb.lb.config.ConfigView;
import io.ailb.lb.config.IntField;
import io.ailb.lb.config.ObjectListField;
import io.ailb.lb.config.StringField;
import io.ailb.lb.policy.LoadBalancingPolicy;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.policy.Step;
import io.ailb.lb.policy.clusterheader.HeaderName;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Sticky weighted choice of a service: the value of {@code hash_header} (a consumer, a tenant) is hashed with FNV-1a
 * 32-bit, and the hash modulo 100 picks one of 100 slots, given to the services in list order, {@code weight} slots
 * each. This is the Go plugin's mapping, so a user keeps their service across the migration. A request without the
 * header gets a local 403: there is no key to be sticky on, and a silent random choice would break the stickiness
 * the route was configured for.
 */
public final class ClusterHashPolicy implements LoadBalancingPolicy {
    public static final String NAME = "cluster_hash";
    static final int SLOTS = 100;

    static final StringField CLUSTER = StringField.required("cluster", "an Envoy cluster name");
    static final IntField WEIGHT = IntField.required("weight", 1, SLOTS, "", "its share in percent");
    static final ObjectListField CLUSTERS = ObjectListField.required(
            "clusters",
            "the services: {cluster: Envoy cluster name, e.g. outbound|80||qwen-a.dns, weight: 1-100}; the weights sum "
                    + "to exactly 100");
    static final StringField HASH_HEADER = StringField.optional(
            "hash_header", "x-mse-consumer", "the request header whose value picks the service; missing: local 403");
    public static final List<ConfigField> FIELDS = ConfigField.list(CLUSTERS, HASH_HEADER, HeaderName.CLUSTER_HEADER);

    /** Slot → service. */
    private final String[] slots = new String[SLOTS];

    private final String hashHeader;
    private final String clusterHeader;

    public ClusterHashPolicy(ConfigView config) throws ConfigException {
        List<ConfigView> clusters = CLUSTERS.read(config);
        int next = 0;
        for (ConfigView entry : clusters) {
            String cluster = CLUSTER.read(entry);
            int weight = WEIGHT.read(entry);
            if (next + weight > SLOTS) {
                throw weightsRefused(config, clusters);
            }
            for (int i = 0; i < weight; i++) {
                slots[next++] = cluster;
            }
        }
        if (next != SLOTS) {
            throw weightsRefused(config, clusters);
        }
        hashHeader = HeaderName.read(HASH_HEADER, config);
        clusterHeader = HeaderName.read(HeaderName.CLUSTER_HEADER, config);
    }

    private static ConfigException weightsRefused(ConfigView config, List<ConfigView> clusters) throws ConfigException {
        int sum = 0;
        for (ConfigView entry : clusters) {
            sum += WEIGHT.read(entry);
        }
        return new ConfigException(
                config.fieldPath(CLUSTERS.name()),
                "weights sum to " + sum + "; they must sum to exactly " + SLOTS + " (each weight is a percentage)");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean readsBody() {
        return false;
    }

    @Override
    public Step select(RequestContext ctx) {
        String key = ctx.requestHeader(hashHeader);
        if (key == null || key.isEmpty()) {
            return Step.reject(
                            403, "header " + hashHeader + " is required on this route (ai-load-balancer " + NAME + ")")
                    .withAttribute(Step.ATTR_POLICY, NAME);
        }
        return Step.toCluster(clusterHeader, serviceFor(key)).withAttribute(Step.ATTR_POLICY, NAME);
    }

    /** The service of a header value. */
    String serviceFor(String key) {
        return slots[Integer.remainderUnsigned(fnv1a32(key.getBytes(StandardCharsets.UTF_8)), SLOTS)];
    }

    /** FNV-1a, 32 bits: offset basis 2166136261, prime 16777619, xor then multiply per byte. */
    static int fnv1a32(byte[] data) {
        int hash = 0x811C9DC5;
        for (byte b : data) {
            hash ^= b & 0xFF;
            hash *= 0x01000193;
        }
        return hash;
    }
}
