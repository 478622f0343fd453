package io.ailb.lb.config;

import io.ailb.codec.json.Json;
import io.ailb.codec.json.JsonException;
import io.ailb.codec.json.JsonValue;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The plugin configuration as Higress delivers it (B.9): global fields at the top level plus {@code _rules_}, each rule
 * carrying {@code _match_*} selectors and its own load-balancing fields. Immutable.
 */
public final class PluginConfig {
    static final String RULES = "_rules_";
    static final String PLUGIN_ID = "_plugin_id_";

    private final LbRule global;
    private final List<LbRule> rules;

    private PluginConfig(LbRule global, List<LbRule> rules) {
        this.global = global;
        this.rules = rules;
    }

    /**
     * Parses and validates the envelope of every rule. The global config may be absent when rules exist; when present
     * it must be valid even if rules exist. {@code _plugin_id_} and unknown fields are ignored, as in wasm-go.
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
        List<LbRule> rules = parseRules(root);
        Map<String, JsonValue> globalFields = new LinkedHashMap<>(document.members());
        globalFields.remove(RULES);
        globalFields.remove(PLUGIN_ID);
        LbRule global = null;
        if (!globalFields.isEmpty()) {
            global = LbRule.parse(ConfigView.root(JsonValue.object(globalFields)), "global", null);
        } else if (rules.isEmpty()) {
            throw new ConfigException("", "plugin config is empty: set lb_policy, or _rules_ with match rules");
        }
        return new PluginConfig(global, rules);
    }

    private static List<LbRule> parseRules(ConfigView root) throws ConfigException {
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
            rules.add(LbRule.parse(view, path, RuleMatcher.parse(view)));
        }
        return Collections.unmodifiableList(rules);
    }

    /** The global config, or null when only rules are configured. */
    public LbRule global() {
        return global;
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
