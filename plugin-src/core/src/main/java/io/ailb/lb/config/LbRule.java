package io.ailb.lb.config;

import java.util.List;

/**
 * One load-balancing config: the global one or a {@code _rules_} entry. Only the envelope is validated here; the
 * policy named by {@link #policy()} validates {@link #lbConfig()} when it is built.
 */
public final class LbRule {
    public static final String LB_TYPE_ENDPOINT = "endpoint";
    public static final String LB_TYPE_CLUSTER = "cluster";

    public static final EnumField LB_TYPE = EnumField.optional(
            "lb_type",
            LB_TYPE_ENDPOINT,
            "endpoint: pick an instance of the route's service; cluster: pick one of several services and write its "
                    + "name into a request header the route selects its cluster by",
            LB_TYPE_ENDPOINT,
            LB_TYPE_CLUSTER);
    public static final StringField LB_POLICY =
            StringField.policyName("lb_policy", true, "how an instance is chosen for each request");
    public static final ObjectField LB_CONFIG =
            ObjectField.optional("lb_config", "the fields of the policy named by lb_policy");
    public static final StringField FALLBACK_POLICY = StringField.policyName(
            "fallback_policy",
            false,
            "a second policy, used when the first fails (Redis unreachable, bad reply...) and fallback_on_error is on");
    public static final BoolField FALLBACK_ON_ERROR = BoolField.optional(
            "fallback_on_error",
            false,
            "turns fallback_policy on; without it a failing policy leaves the choice to the service's own load "
                    + "balancer");
    /**
     * Envoy answers 413 when a filter buffers more request body than the stream's limit (the listener's, 1 MiB in stock
     * Envoy): the plugin raises its streams' limit to this, and never buffers more.
     */
    public static final IntField MAX_BODY_BYTES = IntField.optional(
            "max_body_bytes",
            10 << 20,
            4096,
            1 << 30,
            "bytes",
            "largest request body buffered to read the prompt; the plugin raises Envoy's request buffer limit to it so "
                    + "no long prompt gets a 413, and a bigger body is decided without its prompt and streams through");
    /** The request reader is iterative whatever the depth; the cap bounds its work on pathological bodies. */
    public static final IntField MAX_JSON_DEPTH = IntField.optional(
            "max_json_depth",
            64,
            8,
            1024,
            "",
            "JSON nesting read in a request body (chat bodies nest 4-6 deep); a deeper body is routed without its "
                    + "prompt");
    /** The fields of the global config and of each {@code _rules_} entry, besides the matchers. */
    public static final List<ConfigField> FIELDS = ConfigField.list(
            LB_TYPE, LB_POLICY, LB_CONFIG, FALLBACK_POLICY, FALLBACK_ON_ERROR, MAX_BODY_BYTES, MAX_JSON_DEPTH);

    private final String path;
    private final String lbType;
    private final String policy;
    private final ConfigView lbConfig;
    private final String fallbackPolicy;
    private final boolean fallbackOnError;
    private final RuleMatcher matcher;
    private final int maxBodyBytes;
    private final int maxJsonDepth;

    private LbRule(
            String path,
            String lbType,
            String policy,
            ConfigView lbConfig,
            String fallbackPolicy,
            boolean fallbackOnError,
            RuleMatcher matcher,
            int maxBodyBytes,
            int maxJsonDepth) {
        this.path = path;
        this.maxBodyBytes = maxBodyBytes;
        this.maxJsonDepth = maxJsonDepth;
        this.lbType = lbType;
        this.policy = policy;
        this.lbConfig = lbConfig;
        this.fallbackPolicy = fallbackPolicy;
        this.fallbackOnError = fallbackOnError;
        this.matcher = matcher;
    }

    /**
     * Reads the envelope fields of {@code view}. {@code name} is how messages and logs call this rule
     * ({@code _rules_[2]} or {@code global}); {@code matcher} is null for the global config. Settings that are valid but
     * have no effect are added to {@code warnings}.
     */
    static LbRule parse(ConfigView view, String name, RuleMatcher matcher, List<String> warnings)
            throws ConfigException {
        String lbType = LB_TYPE.read(view);
        String policy = LB_POLICY.read(view);
        ConfigView lbConfig = LB_CONFIG.read(view);
        String fallbackPolicy = FALLBACK_POLICY.read(view);
        boolean fallbackOnError = FALLBACK_ON_ERROR.read(view);
        int maxBodyBytes = MAX_BODY_BYTES.read(view);
        int maxJsonDepth = MAX_JSON_DEPTH.read(view);
        if (fallbackPolicy.equals(policy)) {
            throw new ConfigException(
                    view.fieldPath(FALLBACK_POLICY.name()),
                    fallbackPolicy,
                    "is the same as lb_policy; a fallback must be another policy, the same one fails the same way");
        }
        if (!fallbackPolicy.isEmpty() && !fallbackOnError) {
            warnings.add(view.fieldPath(FALLBACK_POLICY.name()) + "=" + fallbackPolicy
                    + ": never used because fallback_on_error is not true; it is still validated and started (Redis "
                    + "client, metrics scrapes) but when lb_policy fails the service's own load balancer chooses; "
                    + "set fallback_on_error: true or remove fallback_policy");
        }
        if (lbType.equals(LB_TYPE_CLUSTER)
                && matcher != null
                && !matcher.services().isEmpty()) {
            warnings.add(view.fieldPath(RuleMatcher.SERVICE.name()) + ": a rule that chooses the service cannot be "
                    + "matched by service: the route has no cluster until the header is written (cluster_name is "
                    + "empty), so this rule may never apply; match it by route or domain");
        }
        if (fallbackPolicy.isEmpty() && fallbackOnError) {
            warnings.add(view.fieldPath(FALLBACK_ON_ERROR.name()) + "=true: has no effect without fallback_policy; "
                    + "when lb_policy fails the service's own load balancer chooses");
        }
        return new LbRule(
                name,
                lbType,
                policy,
                lbConfig,
                fallbackPolicy.isEmpty() ? null : fallbackPolicy,
                fallbackOnError,
                matcher,
                maxBodyBytes,
                maxJsonDepth);
    }

    /** {@code _rules_[2]} or {@code global}. */
    public String path() {
        return path;
    }

    /** {@value #LB_TYPE_ENDPOINT} or {@value #LB_TYPE_CLUSTER}. */
    public String lbType() {
        return lbType;
    }

    /** The {@code lb_policy} name, not yet checked against the registry. */
    public String policy() {
        return policy;
    }

    /** The {@code lb_config} object; an empty view when absent. */
    public ConfigView lbConfig() {
        return lbConfig;
    }

    /** The {@code fallback_policy} name, or null. */
    public String fallbackPolicy() {
        return fallbackPolicy;
    }

    public boolean fallbackOnError() {
        return fallbackOnError;
    }

    /** The largest request body the plugin buffers for this rule ({@code max_body_bytes}). */
    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    /** The JSON nesting the request reader accepts for this rule ({@code max_json_depth}). */
    public int maxJsonDepth() {
        return maxJsonDepth;
    }

    /** The rule's matchers; null for the global config. */
    public RuleMatcher matcher() {
        return matcher;
    }

    @Override
    public String toString() {
        return path + "(" + policy + ")";
    }
}
