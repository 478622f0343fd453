package io.ailb.lb.config.docs;

import io.ailb.lb.config.ConfigField;
import io.ailb.lb.config.LbRule;
import io.ailb.lb.policy.PolicyRegistry;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * higress-config/spec.yaml, the console's plugin schema: its {@code configSchema} required list and properties are
 * generated from the descriptors (type, enum, default, minimum, maximum, description); the hand-written keys of a
 * field, {@code title} and the {@code x-} extensions (the zh-CN texts), are carried over.
 */
final class SpecYaml {
    static final String REGION = "config schema";
    /** The keys derived from the descriptors. */
    private static final List<String> DERIVED =
            List.of("type", "items", "enum", "default", "minimum", "maximum", "description", "properties");
    /** Hand-written keys that go before the description, in this order. */
    private static final List<String> LEADING = List.of("title", "x-title-i18n");

    private static final String TOP = "      ";

    private SpecYaml() {}

    /** {@code current} with its generated region rebuilt. */
    static String generate(String current) {
        Map<String, Object> schema = schema(YamlText.loadMap(current));
        Map<String, Object> properties = mapOrEmpty(schema.get("properties"));
        Map<String, Object> lbConfigProperties =
                mapOrEmpty(mapOrEmpty(properties.get(LbRule.LB_CONFIG.name())).get("properties"));
        StringBuilder body = new StringBuilder();
        body.append(TOP).append("required: ").append(YamlText.flow(required())).append('\n');
        body.append(TOP).append("properties:\n");
        for (ConfigField field : LbRule.FIELDS) {
            body.append(TOP).append("  ").append(field.name()).append(":\n");
            Map<String, Object> entry = entry(derived(field, false), mapOrEmpty(properties.get(field.name())));
            for (Map.Entry<String, Object> e : entry.entrySet()) {
                body.append(TOP)
                        .append("    ")
                        .append(e.getKey())
                        .append(": ")
                        .append(YamlText.flow(e.getValue()))
                        .append('\n');
            }
            if (field == LbRule.LB_CONFIG) {
                body.append(TOP).append("    properties:\n");
                for (ConfigField policyField : ConfigCatalog.lbConfigFields().values()) {
                    Map<String, Object> nested =
                            entry(derived(policyField, true), mapOrEmpty(lbConfigProperties.get(policyField.name())));
                    body.append(TOP)
                            .append("      ")
                            .append(policyField.name())
                            .append(": ")
                            .append(YamlText.flow(nested))
                            .append('\n');
                }
            }
        }
        return GeneratedRegions.replace(current, Map.of(REGION, body.toString()));
    }

    /** Every derived fact of the file that disagrees with the descriptors, one line each. */
    static List<String> differences(String current) {
        List<String> out = new ArrayList<>();
        Map<String, Object> schema = schema(YamlText.loadMap(current));
        if (!Objects.equals(required(), schema.get("required"))) {
            out.add("required is " + schema.get("required") + ", the descriptors say " + required());
        }
        Map<String, Object> properties = mapOrEmpty(schema.get("properties"));
        compareFields(out, "", properties, LbRule.FIELDS, false);
        Map<String, Object> lbConfig = mapOrEmpty(properties.get(LbRule.LB_CONFIG.name()));
        compareFields(
                out,
                LbRule.LB_CONFIG.name() + ".",
                mapOrEmpty(lbConfig.get("properties")),
                new ArrayList<>(ConfigCatalog.lbConfigFields().values()),
                true);
        return out;
    }

    private static void compareFields(
            List<String> out, String prefix, Map<String, Object> actual, List<ConfigField> fields, boolean lbConfig) {
        List<String> expectedNames = new ArrayList<>();
        for (ConfigField field : fields) {
            expectedNames.add(field.name());
            Map<String, Object> entry = mapOrEmpty(actual.get(field.name()));
            if (!actual.containsKey(field.name())) {
                out.add(prefix + field.name() + " is missing");
                continue;
            }
            Map<String, Object> expected = derived(field, lbConfig);
            for (String key : DERIVED) {
                if (key.equals("properties")) {
                    continue;
                }
                if (!sameValue(expected.get(key), entry.get(key))) {
                    out.add(prefix + field.name() + "." + key + " is " + shown(entry.get(key))
                            + ", the descriptors say " + shown(expected.get(key)));
                }
            }
        }
        for (String name : actual.keySet()) {
            if (!expectedNames.contains(name)) {
                out.add(prefix + name + " is not a field of the plugin");
            }
            for (String key : mapOrEmpty(actual.get(name)).keySet()) {
                if (!DERIVED.contains(key) && !isHandWritten(key)) {
                    out.add(prefix + name + " has the key \"" + key + "\", neither derived nor a title or x- extension "
                            + "(an unquoted comma in a flow value?)");
                }
            }
        }
        if (out.isEmpty() && !expectedNames.equals(new ArrayList<>(actual.keySet()))) {
            out.add(prefix + "fields are in the order " + actual.keySet() + ", the descriptors say " + expectedNames);
        }
    }

    private static List<String> required() {
        List<String> required = new ArrayList<>();
        for (ConfigField field : LbRule.FIELDS) {
            if (field.required()) {
                required.add(field.name());
            }
        }
        return required;
    }

    /** The descriptor's facts as schema keys. In lb_config, a field not every policy has names the ones that do. */
    static Map<String, Object> derived(ConfigField field, boolean lbConfig) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("type", schemaType(field));
        if (field.type() == ConfigField.Type.STRING_LIST) {
            out.put("items", Map.of("type", "string"));
        }
        if (field.type() == ConfigField.Type.OBJECT_LIST) {
            out.put("items", Map.of("type", "object"));
        }
        if (field.namesPolicy()) {
            out.put("enum", PolicyRegistry.names());
        } else if (!field.values().isEmpty()) {
            out.put("enum", field.values());
        }
        Object defaultValue = field.defaultValue();
        boolean shown =
                defaultValue != null && !"".equals(defaultValue) && field.type() != ConfigField.Type.STRING_LIST;
        if (shown) {
            out.put("default", defaultValue);
        }
        if (field.minimum() != null) {
            out.put("minimum", bound(field.minimum()));
        }
        if (field.maximum() != null) {
            out.put("maximum", bound(field.maximum()));
        }
        String doc = field.doc();
        if (lbConfig) {
            List<String> users = ConfigCatalog.users(field.name());
            if (users.size() < PolicyRegistry.names().size()) {
                doc = doc + " (" + String.join(", ", users) + ")";
            }
        }
        out.put("description", doc);
        return out;
    }

    /** The derived keys, then the hand-written ones of the current entry (titles first, then in file order). */
    private static Map<String, Object> entry(Map<String, Object> derived, Map<String, Object> current) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (String key : DERIVED) {
            if (key.equals("description")) {
                for (String leading : LEADING) {
                    if (current.containsKey(leading)) {
                        out.put(leading, current.get(leading));
                    }
                }
            }
            if (derived.containsKey(key)) {
                out.put(key, derived.get(key));
            }
        }
        for (Map.Entry<String, Object> e : current.entrySet()) {
            if (isHandWritten(e.getKey()) && !out.containsKey(e.getKey())) {
                out.put(e.getKey(), e.getValue());
            }
        }
        return out;
    }

    private static boolean isHandWritten(String key) {
        return key.equals("title") || key.startsWith("x-");
    }

    private static String schemaType(ConfigField field) {
        switch (field.type()) {
            case STRING:
                return "string";
            case INTEGER:
                return "integer";
            case NUMBER:
                return "number";
            case BOOLEAN:
                return "boolean";
            case OBJECT:
                return "object";
            default:
                return "array";
        }
    }

    /** Integral bounds as integers (0, not 0.0). */
    private static Number bound(Number n) {
        String text = ConfigCatalog.number(n);
        return text.contains(".") || text.contains("E") ? (Number) n.doubleValue() : (Number) Long.valueOf(text);
    }

    private static boolean sameValue(Object expected, Object actual) {
        if (expected instanceof Number e && actual instanceof Number a) {
            return new BigDecimal(e.toString()).compareTo(new BigDecimal(a.toString())) == 0
                    && (e instanceof Double) == (a instanceof Double);
        }
        return Objects.equals(expected, actual);
    }

    private static String shown(Object value) {
        return value == null ? "absent" : YamlText.flow(value);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> schema(Map<String, Object> spec) {
        Map<String, Object> inner = mapOrEmpty(
                mapOrEmpty(mapOrEmpty(spec.get("spec")).get("configSchema")).get("openAPIV3Schema"));
        if (inner.isEmpty()) {
            throw new IllegalStateException("spec.yaml has no spec.configSchema.openAPIV3Schema");
        }
        return inner;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> mapOrEmpty(Object value) {
        return value instanceof Map ? (Map<String, Object>) value : Map.of();
    }
}
