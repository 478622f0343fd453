package io.ailb.lb.policy;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.ConfigField;
import io.ailb.lb.config.ConfigView;
import io.ailb.lb.config.LbRule;
import io.ailb.lb.policy.cacheaware.CacheAwarePolicy;
import io.ailb.lb.policy.clusterhash.ClusterHashPolicy;
import io.ailb.lb.policy.clustermetrics.ClusterMetricsPolicy;
import io.ailb.lb.policy.endpointmetrics.EndpointMetricsPolicy;
import io.ailb.lb.policy.globalleastrequest.GlobalLeastRequestPolicy;
import io.ailb.lb.policy.prefixcache.PrefixCachePolicy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code lb_policy} name → policy factory and the {@code lb_config} fields it reads. Adding a policy is one package
 * plus one line here; the console schema, the README tables and the refused examples are derived from these entries.
 */
public final class PolicyRegistry {
    /** Builds a policy from its {@code lb_config}, validating every field it reads. */
    @FunctionalInterface
    public interface Factory {
        LoadBalancingPolicy create(ConfigView lbConfig) throws ConfigException;
    }

    /** A registered policy: how to build it, what it reads, the policy it is a name of, and its lb_type. */
    private static final class Registration {
        final Factory factory;
        final List<ConfigField> fields;
        final String implementation;
        final String lbType;

        Registration(Factory factory, List<ConfigField> fields, String implementation, String lbType) {
            this.factory = factory;
            this.fields = fields;
            this.implementation = implementation;
            this.lbType = lbType;
        }
    }

    private static final String ENDPOINT_METRICS = "endpoint_metrics";
    private static final Map<String, Registration> POLICIES = new LinkedHashMap<>();

    static {
        alias(
                "least_busy",
                ENDPOINT_METRICS,
                EndpointMetricsPolicy.FIELDS,
                config -> new EndpointMetricsPolicy("least_busy", config));
        register(
                ENDPOINT_METRICS,
                EndpointMetricsPolicy.FIELDS,
                config -> new EndpointMetricsPolicy(ENDPOINT_METRICS, config));
        alias(
                "metrics_based",
                ENDPOINT_METRICS,
                EndpointMetricsPolicy.FIELDS,
                config -> new EndpointMetricsPolicy("metrics_based", config));
        register("global_least_request", GlobalLeastRequestPolicy.FIELDS, GlobalLeastRequestPolicy::new);
        register("prefix_cache", PrefixCachePolicy.FIELDS, PrefixCachePolicy::new);
        register("cache_aware", CacheAwarePolicy.FIELDS, CacheAwarePolicy::new);
        POLICIES.put(
                ClusterMetricsPolicy.NAME,
                new Registration(
                        ClusterMetricsPolicy::new,
                        ClusterMetricsPolicy.FIELDS,
                        ClusterMetricsPolicy.NAME,
                        LbRule.LB_TYPE_CLUSTER));
        POLICIES.put(
                ClusterHashPolicy.NAME,
                new Registration(
                        ClusterHashPolicy::new,
                        ClusterHashPolicy.FIELDS,
                        ClusterHashPolicy.NAME,
                        LbRule.LB_TYPE_CLUSTER));
    }

    private PolicyRegistry() {}

    private static void register(String name, List<ConfigField> fields, Factory factory) {
        alias(name, name, fields, factory);
    }

    /** {@code name} is another name of the policy {@code implementation}: it behaves, and fails, the same. */
    private static void alias(String name, String implementation, List<ConfigField> fields, Factory factory) {
        POLICIES.put(name, new Registration(factory, fields, implementation, LbRule.LB_TYPE_ENDPOINT));
    }

    /** Known names in registration order; every one is also accepted as {@code fallback_policy}. */
    public static List<String> names() {
        return Collections.unmodifiableList(new ArrayList<>(POLICIES.keySet()));
    }

    public static boolean isKnown(String name) {
        return POLICIES.containsKey(name);
    }

    /** True when two known names are the same policy under different names (or the same name). */
    public static boolean sameImplementation(String name, String other) {
        return registration(name).implementation.equals(registration(other).implementation);
    }

    /** The {@code lb_type} a known policy serves: endpoint (an instance) or cluster (a service). */
    public static String lbType(String name) {
        return registration(name).lbType;
    }

    /** The {@code lb_config} fields a known policy reads, in the order its docs list them. */
    public static List<ConfigField> fields(String name) {
        return registration(name).fields;
    }

    private static Registration registration(String name) {
        Registration registration = POLICIES.get(name);
        if (registration == null) {
            throw new IllegalArgumentException("unknown policy " + name);
        }
        return registration;
    }

    /** Reads {@code lb_policy} (required) and {@code lb_config} (absent = empty) of a plugin config or rule. */
    public static LoadBalancingPolicy create(ConfigView rule) throws ConfigException {
        return create(
                LbRule.LB_POLICY.read(rule), rule.fieldPath(LbRule.LB_POLICY.name()), LbRule.LB_CONFIG.read(rule));
    }

    /** {@code policyPath} names the field that held {@code name}, for the unknown-name error. */
    public static LoadBalancingPolicy create(String name, String policyPath, ConfigView lbConfig)
            throws ConfigException {
        Registration registration = POLICIES.get(name);
        if (registration == null) {
            throw new ConfigException(
                    policyPath,
                    "unknown policy \"" + name + "\"; known policies: " + String.join(", ", POLICIES.keySet()));
        }
        return registration.factory.create(lbConfig);
    }
}
