package io.ailb.lb.config.docs;

import io.ailb.lb.config.ConfigField;
import io.ailb.lb.config.LbRule;
import io.ailb.lb.config.RuleMatcher;
import io.ailb.lb.policy.PolicyRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The field tables of higress-config/README.md, generated between marker comments: {@value #PLUGIN_FIELDS},
 * {@value #RULE_MATCHERS}, and one {@code lb_config of <names>} per policy (aliases that read the same fields share
 * one table). Also the check of the top-level README.md's policy table.
 */
final class ReadmeTables {
    static final String PLUGIN_FIELDS = "plugin fields";
    static final String RULE_MATCHERS = "rule matchers";
    static final String LB_CONFIG_OF = "lb_config of ";
    /** The header of README.md's policy table; its first column names the policies. */
    static final String POLICY_TABLE_HEADER = "| policy (`lb_policy`) |";

    private ReadmeTables() {}

    /**
     * {@code current} with every table region rebuilt. Fails when a region names an unknown table or policy, or when a
     * policy has no table: where a table goes is a writer's choice, so a missing one is added by hand.
     */
    static String generate(String current) {
        Map<String, String> bodies = new LinkedHashMap<>();
        for (String id : GeneratedRegions.read(current).keySet()) {
            bodies.put(id, table(fieldsOf(id)));
        }
        List<String> missing = new ArrayList<>(PolicyRegistry.names());
        for (String id : bodies.keySet()) {
            if (id.startsWith(LB_CONFIG_OF)) {
                missing.removeAll(namesOf(id));
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalStateException("higress-config/README.md has no field table for " + missing + ": add the "
                    + "lines <!-- BEGIN GENERATED: " + LB_CONFIG_OF + String.join(", ", missing) + " --> and "
                    + "<!-- END GENERATED --> where the table belongs (aliases reading the same fields share one), "
                    + "then regenerate");
        }
        return GeneratedRegions.replace(current, bodies);
    }

    private static List<ConfigField> fieldsOf(String id) {
        if (id.equals(PLUGIN_FIELDS)) {
            return LbRule.FIELDS;
        }
        if (id.equals(RULE_MATCHERS)) {
            return RuleMatcher.FIELDS;
        }
        if (!id.startsWith(LB_CONFIG_OF)) {
            throw new IllegalStateException("higress-config/README.md: unknown generated table \"" + id + "\"; known: "
                    + PLUGIN_FIELDS + ", " + RULE_MATCHERS + ", " + LB_CONFIG_OF + "<policy names>");
        }
        List<String> names = namesOf(id);
        List<ConfigField> fields = null;
        for (String name : names) {
            if (!PolicyRegistry.isKnown(name)) {
                throw new IllegalStateException("higress-config/README.md: table \"" + id + "\" names " + name
                        + ", which is not a registered policy");
            }
            if (fields != null && !fields.equals(PolicyRegistry.fields(name))) {
                throw new IllegalStateException("higress-config/README.md: table \"" + id + "\" groups policies that "
                        + "read different fields; give each its own table");
            }
            fields = PolicyRegistry.fields(name);
        }
        return fields;
    }

    private static List<String> namesOf(String id) {
        List<String> names = new ArrayList<>();
        for (String name : id.substring(LB_CONFIG_OF.length()).split(",")) {
            names.add(name.trim());
        }
        return names;
    }

    static String table(List<ConfigField> fields) {
        StringBuilder out = new StringBuilder();
        out.append("| field | type | default | accepted | meaning |\n");
        out.append("|---|---|---|---|---|\n");
        for (ConfigField field : fields) {
            out.append("| `")
                    .append(field.name())
                    .append("` | ")
                    .append(type(field))
                    .append(" | ")
                    .append(defaultText(field))
                    .append(" | ")
                    .append(accepted(field))
                    .append(" | ")
                    .append(escape(field.doc()))
                    .append(" |\n");
        }
        return out.toString();
    }

    private static String type(ConfigField field) {
        switch (field.type()) {
            case STRING:
                return "string";
            case INTEGER:
                return field.unit().isEmpty() ? "int" : "int " + field.unit();
            case NUMBER:
                return "number";
            case BOOLEAN:
                return "bool";
            case OBJECT:
                return "object";
            case OBJECT_LIST:
                return "list of objects";
            default:
                return "list of strings";
        }
    }

    private static String defaultText(ConfigField field) {
        if (field.requiredWhen() != null) {
            return "required when " + field.requiredWhen();
        }
        if (field.required()) {
            return "required";
        }
        if (field.type() == ConfigField.Type.OBJECT) {
            return "`{}`";
        }
        if (field.type() == ConfigField.Type.STRING_LIST) {
            return "`[]`";
        }
        Object value = field.defaultValue();
        if (value == null) {
            return "none";
        }
        if (value instanceof String) {
            return ((String) value).isEmpty() ? "`\"\"`" : "`" + value + "`";
        }
        return value.toString();
    }

    private static String accepted(ConfigField field) {
        List<String> values = field.namesPolicy() ? PolicyRegistry.names() : field.values();
        if (!values.isEmpty()) {
            return "`" + String.join("`, `", values) + "`";
        }
        Number min = field.minimum();
        Number max = field.maximum();
        if (min != null && max != null) {
            return "[" + ConfigCatalog.number(min) + ", " + ConfigCatalog.number(max) + "]";
        }
        if (min != null) {
            return "≥ " + ConfigCatalog.number(min);
        }
        return max != null ? "≤ " + ConfigCatalog.number(max) : "";
    }

    /** Markdown table cells: a pipe ends the cell and asterisks would start emphasis. */
    private static String escape(String text) {
        return text.replace("|", "\\|").replace("*", "\\*");
    }

    /** The policies README.md's policy table names in its first column (each in backquotes). */
    static Set<String> policyTableNames(String readme) {
        Set<String> names = new LinkedHashSet<>();
        boolean inTable = false;
        Pattern quoted = Pattern.compile("`([^`]+)`");
        for (String line : readme.split("\n")) {
            if (line.startsWith(POLICY_TABLE_HEADER)) {
                inTable = true;
                continue;
            }
            if (!inTable) {
                continue;
            }
            if (!line.startsWith("|")) {
                break;
            }
            String firstCell = line.substring(1, line.indexOf('|', 1));
            Matcher m = quoted.matcher(firstCell);
            while (m.find()) {
                names.add(m.group(1));
            }
        }
        return names;
    }
}
