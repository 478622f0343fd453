package io.ailb.lb.config.docs;

import io.ailb.codec.json.JsonValue;
import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.ConfigField;
import io.ailb.lb.config.LbRule;
import io.ailb.lb.flow.RouteTable;
import io.ailb.lb.policy.PolicyRegistry;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * higress-config/broken-configs.yaml: configurations the plugin refuses, each with its message. Hand-written entries
 * come first; the region {@value #REGION} at the end holds one entry per bound of every ranged field that no
 * hand-written entry already tests (a value one past the bound), generated with the message the core gives.
 */
final class BrokenConfigs {
    static final String REGION = "range cases";
    private static final String ERROR_LINE = "  error: ";
    /** Values for required fields, so that a generated case is refused only for the field it tests. */
    private static final Map<String, Object> SAMPLES = Map.of(
            "serviceFQDN",
            "redis.static",
            "servicePort",
            6379,
            "service_list",
            List.of("outbound|80||qwen-a.dns"),
            "clusters",
            List.of(Map.of("cluster", "outbound|80||qwen-a.dns", "weight", 100)));

    private BrokenConfigs() {}

    /** One entry: its name, config and expected message. */
    record Case(String name, Object config, String error) {}

    /** One side of a field's range. */
    record Bound(ConfigField field, boolean upper) {
        Number limit() {
            return upper ? field.maximum() : field.minimum();
        }

        /** One past the bound (bound ± 1), as an integer when it is whole. */
        Number pastIt() {
            BigDecimal past = new BigDecimal(ConfigCatalog.number(limit())).add(BigDecimal.valueOf(upper ? 1 : -1));
            boolean whole = past.stripTrailingZeros().scale() <= 0;
            return whole ? (Number) past.longValueExact() : (Number) past.doubleValue();
        }

        String describe() {
            String side = upper ? " above its maximum " : " below its minimum ";
            return field.name() + side + ConfigCatalog.number(limit());
        }
    }

    static List<Case> cases(String text) {
        List<Case> out = new ArrayList<>();
        List<Map<String, Object>> entries = YamlText.loadList(text);
        for (Map<String, Object> entry : entries) {
            out.add(new Case((String) entry.get("name"), entry.get("config"), (String) entry.get("error")));
        }
        return out;
    }

    /** The entries outside the generated region. */
    static List<Case> handWritten(String text) {
        String region = GeneratedRegions.read(text).getOrDefault(REGION, "");
        List<Case> all = cases(text);
        int generated = region.isBlank() ? 0 : cases(region).size();
        return all.subList(0, all.size() - generated);
    }

    /** The core's message for a config, or null when the core accepts it. */
    static String refusal(Object config) {
        try {
            RouteTable.parse(json(config).toJson().getBytes(StandardCharsets.UTF_8));
            return null;
        } catch (ConfigException e) {
            return e.getMessage();
        }
    }

    /** Every bound of every ranged field (lb_config of any policy, and the plugin-level fields). */
    static List<Bound> bounds() {
        List<ConfigField> fields = new ArrayList<>(LbRule.FIELDS);
        fields.addAll(ConfigCatalog.lbConfigFields().values());
        List<Bound> out = new ArrayList<>();
        for (ConfigField field : fields) {
            if (field.minimum() != null) {
                out.add(new Bound(field, false));
            }
            if (field.maximum() != null) {
                out.add(new Bound(field, true));
            }
        }
        return out;
    }

    /** Whether a refusal message is about a value past this bound: {@code <path>.<field>=<number>: ...}. */
    static boolean tests(String error, Bound bound) {
        int colon = error.indexOf(": ");
        int equals = colon < 0 ? -1 : error.lastIndexOf('=', colon);
        if (equals < 0) {
            return false;
        }
        String path = error.substring(0, equals);
        String field = path.substring(path.lastIndexOf('.') + 1);
        BigDecimal value;
        try {
            value = new BigDecimal(error.substring(equals + 1, colon));
        } catch (NumberFormatException e) {
            return false;
        }
        int side = value.compareTo(new BigDecimal(ConfigCatalog.number(bound.limit())));
        return field.equals(bound.field().name()) && (bound.upper() ? side > 0 : side < 0);
    }

    /**
     * {@code current} with the messages of the hand-written entries refreshed from the core and the range cases
     * rebuilt. Fails when a hand-written entry is accepted now: that needs a person.
     */
    static String generate(String current) {
        List<Case> handWritten = handWritten(current);
        String refreshed = refreshErrors(current, handWritten);
        StringBuilder region = new StringBuilder();
        for (Bound bound : bounds()) {
            if (handWritten.stream().anyMatch(c -> tests(c.error(), bound))) {
                continue;
            }
            Map<String, Object> config = caseConfig(bound);
            String error = refusal(config);
            if (error == null || !tests(error, bound)) {
                throw new IllegalStateException("the core does not refuse " + bound.describe() + " with a message "
                        + "about it: " + YamlText.flow(config) + " gives " + error);
            }
            region.append("- name: ").append(YamlText.flow(bound.describe())).append('\n');
            region.append("  config: ").append(YamlText.flow(config)).append('\n');
            region.append(ERROR_LINE).append(YamlText.flow(error)).append('\n');
        }
        return GeneratedRegions.replace(refreshed, Map.of(REGION, region.toString()));
    }

    private static String refreshErrors(String current, List<Case> handWritten) {
        String[] lines = current.split("\n", -1);
        int entry = 0;
        for (int i = 0; i < lines.length && entry < handWritten.size(); i++) {
            if (!lines[i].startsWith(ERROR_LINE)) {
                continue;
            }
            Case c = handWritten.get(entry++);
            String error = refusal(c.config());
            if (error == null) {
                throw new IllegalStateException("broken-configs.yaml entry \"" + c.name() + "\" is accepted now: "
                        + "fix the plugin or remove the entry");
            }
            lines[i] = ERROR_LINE + YamlText.flow(error);
        }
        if (entry != handWritten.size()) {
            throw new IllegalStateException("broken-configs.yaml: found " + entry + " one-line '" + ERROR_LINE.trim()
                    + "' lines for " + handWritten.size() + " hand-written entries; write each error on one line");
        }
        return String.join("\n", lines);
    }

    /** The first policy with the field, its required fields from the samples, and the field past the bound. */
    private static Map<String, Object> caseConfig(Bound bound) {
        String name = bound.field().name();
        Map<String, Object> config = new LinkedHashMap<>();
        if (ConfigCatalog.lbConfigFields().get(name) != bound.field()) {
            throw new IllegalStateException("no generated case for plugin-level field " + name
                    + "; write its broken-configs.yaml entry by hand");
        }
        String policy = ConfigCatalog.firstUser(name);
        Map<String, Object> lbConfig = new LinkedHashMap<>();
        for (ConfigField field : PolicyRegistry.fields(policy)) {
            if (field.required()) {
                if (!SAMPLES.containsKey(field.name())) {
                    throw new IllegalStateException(
                            "add a sample value for the required field " + field.name() + " to BrokenConfigs.SAMPLES");
                }
                lbConfig.put(field.name(), SAMPLES.get(field.name()));
            }
        }
        lbConfig.put(name, bound.pastIt());
        if (!PolicyRegistry.lbType(policy).equals(LbRule.LB_TYPE_ENDPOINT)) {
            config.put(LbRule.LB_TYPE.name(), PolicyRegistry.lbType(policy));
        }
        config.put(LbRule.LB_POLICY.name(), policy);
        config.put(LbRule.LB_CONFIG.name(), lbConfig);
        return config;
    }

    /** A YAML value (maps, lists, strings, numbers, booleans, null) as the JSON the plugin would get. */
    @SuppressWarnings("unchecked")
    static JsonValue json(Object value) {
        if (value == null) {
            return JsonValue.NULL;
        }
        if (value instanceof Map) {
            Map<String, JsonValue> members = new LinkedHashMap<>();
            for (Map.Entry<String, Object> e : ((Map<String, Object>) value).entrySet()) {
                members.put(e.getKey(), json(e.getValue()));
            }
            return JsonValue.object(members);
        }
        if (value instanceof List) {
            List<JsonValue> elements = new ArrayList<>();
            for (Object element : (List<Object>) value) {
                elements.add(json(element));
            }
            return JsonValue.array(elements);
        }
        if (value instanceof Boolean) {
            return JsonValue.bool((Boolean) value);
        }
        if (value instanceof Number) {
            return JsonValue.number(value.toString());
        }
        return JsonValue.string(value.toString());
    }
}
