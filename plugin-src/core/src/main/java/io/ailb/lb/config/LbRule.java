package io.ailb.lb.config;

/**
 * One load-balancing config: the global one or a {@code _rules_} entry. Only the envelope is validated here; the
 * policy named by {@link #policy()} validates {@link #lbConfig()} when it is built.
 */
public final class LbRule {
    public static final String LB_TYPE_ENDPOINT = "endpoint";

    private final String path;
    private final String lbType;
    private final String policy;
    private final ConfigView lbConfig;
    private final String fallbackPolicy;
    private final boolean fallbackOnError;
    private final RuleMatcher matcher;

    private LbRule(String path, String lbType, String policy, ConfigView lbConfig, String fallbackPolicy,
                   boolean fallbackOnError, RuleMatcher matcher) {
        this.path = path;
        this.lbType = lbType;
        this.policy = policy;
        this.lbConfig = lbConfig;
        this.fallbackPolicy = fallbackPolicy;
        this.fallbackOnError = fallbackOnError;
        this.matcher = matcher;
    }

    /**
     * Reads the envelope fields of {@code view}. {@code name} is how messages and logs call this rule
     * ({@code _rules_[2]} or {@code global}); {@code matcher} is null for the global config.
     */
    static LbRule parse(ConfigView view, String name, RuleMatcher matcher) throws ConfigException {
        String lbType = view.string("lb_type", "");
        if (lbType.isEmpty() || lbType.equals(LB_TYPE_ENDPOINT)) {
            lbType = LB_TYPE_ENDPOINT;
        } else if (lbType.equals("cluster")) {
            throw new ConfigException(view.fieldPath("lb_type"), lbType,
                    "is not supported yet; only endpoint load balancing is");
        } else {
            throw new ConfigException(view.fieldPath("lb_type"), lbType, "must be endpoint");
        }
        String policy = view.requiredString("lb_policy");
        ConfigView lbConfig = view.object("lb_config");
        String fallbackPolicy = view.string("fallback_policy", "");
        boolean fallbackOnError = view.bool("fallback_on_error", false);
        return new LbRule(name, lbType, policy, lbConfig, fallbackPolicy.isEmpty() ? null : fallbackPolicy,
                fallbackOnError, matcher);
    }

    /** {@code _rules_[2]} or {@code global}. */
    public String path() {
        return path;
    }

    /** Always {@value #LB_TYPE_ENDPOINT} for now. */
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

    /** The rule's matchers; null for the global config. */
    public RuleMatcher matcher() {
        return matcher;
    }

    @Override
    public String toString() {
        return path + "(" + policy + ")";
    }
}
