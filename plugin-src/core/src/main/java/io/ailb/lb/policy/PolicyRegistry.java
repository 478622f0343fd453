package io.ailb.lb.policy;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.ConfigView;
import io.ailb.lb.policy.cacheaware.CacheAwarePolicy;
import io.ailb.lb.policy.endpointmetrics.EndpointMetricsPolicy;
import io.ailb.lb.policy.globalleastrequest.GlobalLeastRequestPolicy;
import io.ailb.lb.policy.prefixcache.PrefixCachePolicy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code lb_policy} name → policy factory. Adding a policy is one package plus one line here. */
public final class PolicyRegistry {
    /** Builds a policy from its {@code lb_config}, validating every field it reads. */
    @FunctionalInterface
    public interface Factory {
        LoadBalancingPolicy create(ConfigView lbConfig) throws ConfigException;
    }

    private static final Map<String, Factory> FACTORIES = new LinkedHashMap<>();

    static {
        FACTORIES.put("least_busy", config -> new EndpointMetricsPolicy("least_busy", config));
        FACTORIES.put("endpoint_metrics", config -> new EndpointMetricsPolicy("endpoint_metrics", config));
        FACTORIES.put("metrics_based", config -> new EndpointMetricsPolicy("metrics_based", config));
        FACTORIES.put("global_least_request", GlobalLeastRequestPolicy::new);
        FACTORIES.put("prefix_cache", PrefixCachePolicy::new);
        FACTORIES.put("cache_aware", CacheAwarePolicy::new);
    }

    private PolicyRegistry() {
    }

    /** Known names in registration order. */
    public static List<String> names() {
        return Collections.unmodifiableList(new ArrayList<>(FACTORIES.keySet()));
    }

    public static boolean isKnown(String name) {
        return FACTORIES.containsKey(name);
    }

    /** Reads {@code lb_policy} (required) and {@code lb_config} (absent = empty) of a plugin config or rule. */
    public static LoadBalancingPolicy create(ConfigView rule) throws ConfigException {
        return create(rule.requiredString("lb_policy"), rule.fieldPath("lb_policy"), rule.object("lb_config"));
    }

    /** {@code policyPath} names the field that held {@code name}, for the unknown-name error. */
    public static LoadBalancingPolicy create(String name, String policyPath, ConfigView lbConfig)
            throws ConfigException {
        Factory factory = FACTORIES.get(name);
        if (factory == null) {
            throw new ConfigException(policyPath,
                    "unknown policy \"" + name + "\"; known policies: " + String.join(", ", FACTORIES.keySet()));
        }
        return factory.create(lbConfig);
    }
}
