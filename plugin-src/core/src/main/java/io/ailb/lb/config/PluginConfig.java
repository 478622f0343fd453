package io.ailb.lb.config;

import io.ailb.codec.json.Json;
import io.ailb.codec.json.JsonException;
import io.ailb.codec.json.JsonValue;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The plugin configuration as Higress delivers it (B.9): global fields at the top level plus {@code _rules_}, each rule
 * carrying {@code _match_*} selectors and its own load-balancing fields. Immutable.
 */
public final class PluginConfig {
    static final String RULES = "_rules_";
    static final String PLUGIN_ID = "_plugin_id_";
    /** What may appear at the top level: the global config's fields and what Higress and wasm-go add. */
    private static final Set<String> TOP_LEVEL_FIELDS = new LinkedHashSet<>();
    /** What may appear in a {@code _rules_} entry: the same fields plus the matchers Higress's controller writes. */
    private static final Set<String> RULE_FIELDS = new LinkedHashSet<>();

    static {
        UnknownFields.addNames(TOP_LEVEL_FIELDS, LbRule.FIELDS);
        TOP_LEVEL_FIELDS.add(RULES);
        TOP_LEVEL_FIELDS.add(PLUGIN_ID);
        UnknownFields.addNames(RULE_FIELDS, LbRule.FIELDS);
        UnknownFields.addNames(RULE_FIELDS, RuleMatcher.FIELDS);
    }

    private final LbRule global;
    private final List<LbRule> rules;
    private final List<String> warnings;

    private PluginConfig(LbRule global, List<LbRule> rules, List<String> warnings) {
        this.global = global;
        this.rules = rules;
        this.warnings = warnings;
    }

    /**
     * Parses and validates the envelope of every rule. The global config may be absent when rules exist; when present
     * it must be valid even if rules exist. {@code _plugin_id_} is ignored and unknown fields are ignored with a
     * warning, as wasm-go ignores both.
     */
    public static PluginConfig parse(byte[] json) throws ConfigException {
        JsonValue document;
        try {
            document = Json.parse(json);
        } catch (JsonException e) {
            throw new ConfigException("", "plugin config is not valid JSON: " + e.getMessage());
        }
        if (!document.isObject()) {
            throw new ConfigException("", "plugin config must be a JSON object");
        }
        ConfigView root = ConfigView.root(document);
        List<String> warnings = new ArrayList<>();
        UnknownFields.check(root, TOP_LEVEL_FIELDS, "at the top level", warnings);
        try {
            List<LbRule> rules = parseRules(root, warnings);
            Map<String, JsonValue> globalFields = new LinkedHashMap<>(document.members());
            globalFields.remove(RULES);
            globalFields.remove(PLUGIN_ID);
            LbRule global = null;
            if (!globalFields.isEmpty()) {
                global = LbRule.parse(ConfigView.root(JsonValue.object(globalFields)), "global", null, warnings);
            } else if (rules.isEmpty()) {
                throw new ConfigException("", "plugin config is empty: set lb_policy, or _rules_ with match rules");
            }
            return new PluginConfig(global, rules, Collections.unmodifiableList(warnings));
        } catch (ConfigException e) {
            throw e.withWarnings(warnings);
        }
    }

    private static List<LbRule> parseRules(ConfigView root, List<String> warnings) throws ConfigException {
        JsonValue list = root.raw(RULES);
        if (list == null || list.isNull()) {
            return Collections.emptyList();
        }
        if (!list.isArray()) {
            throw new ConfigException(RULES, "must be a list of rule objects");
        }
        List<LbRule> rules = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            String path = RULES + "[" + i + "]";
            JsonValue rule = list.get(i);
            if (!rule.isObject()) {
                throw new ConfigException(path, "must be an object");
            }
            ConfigView view = ConfigView.of(rule, path);
            UnknownFields.check(view, RULE_FIELDS, "in a _rules_ entry", warnings);
            rules.add(LbRule.parse(view, path, RuleMatcher.parse(view), warnings));
        }
        return Collections.unmodifiableList(rules);
    }

    /** The global config, or null when only rules are configured. */
    public LbRule global() {
        return global;
    }

    /** One line per field nobody reads or setting that has no effect, for the shell to log at warn level. */
    public List<String> warnings() {
        return warnings;
    }

    /** The {@code _rules_} entries in list order. */
    public List<LbRule> rules() {
        return rules;
    }

    /** Every config a policy must be built for: the rules in order, then the global one if present. */
    public List<LbRule> all() {
        List<LbRule> all = new ArrayList<>(rules);
        if (global != null) {
            all.add(global);
        }
        return Collections.unmodifiableList(all);
    }

    /**
     * The config for a request: the first rule in list order that matches, else the global config, else null (the
     * plugin leaves the request alone). Arguments may be null when unknown.
     */
    public LbRule match(String routeName, String authority, String clusterName) {
        for (LbRule rule : rules) {
            if (rule.matcher().matches(routeName, authority, clusterName)) {
                return rule;
            }
        }
        return global;
    }
}
