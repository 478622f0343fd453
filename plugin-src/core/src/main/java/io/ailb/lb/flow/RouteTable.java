package io.ailb.lb.flow;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.LbRule;
import io.ailb.lb.config.PluginConfig;
import io.ailb.lb.config.UnknownFields;
import io.ailb.lb.policy.LoadBalancingPolicy;
import io.ailb.lb.policy.PolicyRegistry;
import io.ailb.lb.policy.ScrapeRequest;
import io.ailb.lb.policy.SharedState;
import io.ailb.lb.redis.RedisTarget;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A validated plugin configuration with its policies built: one {@link RoutePolicy} per rule. A new configuration
 * builds a new table; requests already under way keep the policies they started with.
 */
public final class RouteTable {
    private final PluginConfig config;
    private final Map<LbRule, RoutePolicy> byRule;
    private final List<LoadBalancingPolicy> policies;
    private final List<String> warnings;

    private RouteTable(
            PluginConfig config,
            Map<LbRule, RoutePolicy> byRule,
            List<LoadBalancingPolicy> policies,
            List<String> warnings) {
        this.config = config;
        this.byRule = byRule;
        this.policies = policies;
        this.warnings = warnings;
    }

    /** Parses, validates and builds everything; the first problem is reported with the field's path. */
    public static RouteTable parse(byte[] pluginConfigJson) throws ConfigException {
        PluginConfig config = PluginConfig.parse(pluginConfigJson);
        Map<LbRule, RoutePolicy> byRule = new HashMap<>();
        List<LoadBalancingPolicy> policies = new ArrayList<>();
        List<String> warnings = new ArrayList<>(config.warnings());
        try {
            for (LbRule rule : config.all()) {
                addRule(rule, byRule, policies, warnings);
            }
        } catch (ConfigException e) {
            throw e.withWarnings(warnings);
        }
        return new RouteTable(
                config, byRule, Collections.unmodifiableList(policies), Collections.unmodifiableList(warnings));
    }

    /**
     * Creates the rule's policies. lb_config is checked for unknown fields first, as a misspelt field often explains a
     * refusal; with an unknown policy name there is no field list to check against, and the name is the refusal.
     */
    private static void addRule(
            LbRule rule, Map<LbRule, RoutePolicy> byRule, List<LoadBalancingPolicy> policies, List<String> warnings)
            throws ConfigException {
        if (PolicyRegistry.isKnown(rule.policy())
                && (rule.fallbackPolicy() == null || PolicyRegistry.isKnown(rule.fallbackPolicy()))) {
            checkLbConfigFields(rule, warnings);
        }
        String prefix = rule.path().equals("global") ? "" : rule.path() + ".";
        checkLbType(rule, rule.policy(), prefix + LbRule.LB_POLICY.name());
        if (rule.fallbackPolicy() != null) {
            checkLbType(rule, rule.fallbackPolicy(), prefix + LbRule.FALLBACK_POLICY.name());
        }
        LoadBalancingPolicy primary =
                PolicyRegistry.create(rule.policy(), prefix + LbRule.LB_POLICY.name(), rule.lbConfig());
        LoadBalancingPolicy fallback = null;
        if (rule.fallbackPolicy() != null) {
            // Validated even when fallback_on_error is off, so a typo never waits for the first outage.
            fallback = PolicyRegistry.create(
                    rule.fallbackPolicy(), prefix + LbRule.FALLBACK_POLICY.name(), rule.lbConfig());
            if (PolicyRegistry.sameImplementation(rule.policy(), rule.fallbackPolicy())) {
                throw new ConfigException(
                        prefix + LbRule.FALLBACK_POLICY.name(),
                        rule.fallbackPolicy(),
                        "is another name of lb_policy " + rule.policy()
                                + "; a fallback must be another policy, the same one fails the same way");
            }
            policies.add(fallback);
        }
        policies.add(primary);
        byRule.put(
                rule,
                new RoutePolicy(
                        rule.path(),
                        primary,
                        rule.fallbackOnError() ? fallback : null,
                        rule.lbType().equals(LbRule.LB_TYPE_CLUSTER),
                        rule.maxBodyBytes(),
                        rule.maxJsonDepth()));
    }

    /** A policy chooses an instance or a service; lb_type says which the rule wants, and both must agree. */
    private static void checkLbType(LbRule rule, String policy, String policyPath) throws ConfigException {
        if (PolicyRegistry.isKnown(policy) && !PolicyRegistry.lbType(policy).equals(rule.lbType())) {
            String wanted = PolicyRegistry.lbType(policy);
            throw new ConfigException(
                    policyPath,
                    policy,
                    "is an lb_type " + wanted + " policy but the rule's lb_type is " + rule.lbType() + "; set lb_type: "
                            + wanted + " (" + LbRule.LB_TYPE_ENDPOINT + " picks an instance of the route's service, "
                            + LbRule.LB_TYPE_CLUSTER + " picks one of several services)");
        }
    }

    /** lb_config is read by both policies of a rule, so a field either of them reads is known. */
    private static void checkLbConfigFields(LbRule rule, List<String> warnings) {
        Set<String> known = new LinkedHashSet<>();
        UnknownFields.addNames(known, PolicyRegistry.fields(rule.policy()));
        String readers = rule.policy();
        if (rule.fallbackPolicy() != null) {
            UnknownFields.addNames(known, PolicyRegistry.fields(rule.fallbackPolicy()));
            readers = readers + " and " + rule.fallbackPolicy();
        }
        UnknownFields.check(rule.lbConfig(), known, "in lb_config of " + readers, warnings);
    }

    /** One line per unknown field or setting without effect; the config is still valid, the shell logs each. */
    public List<String> warnings() {
        return warnings;
    }

    /** The policies for a request, or null when no rule applies (the plugin leaves the request alone). */
    public RoutePolicy match(String routeName, String authority, String clusterName) {
        LbRule rule = config.match(routeName, authority, clusterName);
        return rule == null ? null : byRule.get(rule);
    }

    /** Every distinct Redis service the policies use, to initialise once at configure time. */
    public List<RedisTarget> redisTargets() {
        Set<RedisTarget> targets = new LinkedHashSet<>();
        for (LoadBalancingPolicy policy : policies) {
            targets.addAll(policy.redisTargets());
        }
        return new ArrayList<>(targets);
    }

    /** The shortest tick period any policy asks for; 0 when none needs ticks. */
    public long tickPeriodMillis() {
        long period = 0;
        for (LoadBalancingPolicy policy : policies) {
            long wanted = policy.tickPeriodMillis();
            if (wanted > 0 && (period == 0 || wanted < period)) {
                period = wanted;
            }
        }
        return period;
    }

    /** The scrapes due now, each paired with the policy that must receive its result. */
    public List<ScrapeJob> onTick(long nowMillis) {
        List<ScrapeJob> jobs = new ArrayList<>();
        for (LoadBalancingPolicy policy : policies) {
            for (ScrapeRequest request : policy.onTick(nowMillis)) {
                jobs.add(new ScrapeJob(policy, request));
            }
        }
        return jobs;
    }

    /** Lets every policy pool its measurements with the gateway's other VMs (called at each tick). */
    public void shareState(SharedState state, long nowMillis) {
        for (LoadBalancingPolicy policy : policies) {
            policy.shareState(state, nowMillis);
        }
    }

    /** A metrics scrape and the policy waiting for it. */
    public static final class ScrapeJob {
        private final LoadBalancingPolicy policy;
        private final ScrapeRequest request;

        ScrapeJob(LoadBalancingPolicy policy, ScrapeRequest request) {
            this.policy = policy;
            this.request = request;
        }

        public ScrapeRequest request() {
            return request;
        }

        /** Hands the outcome back: HTTP status (0 = failed) and body (null when none). */
        public void complete(int httpStatus, String body, long nowMillis) {
            policy.onScrapeResult(request.host(), httpStatus, body, nowMillis);
        }
    }
}
