package io.ailb.lb.config.docs;

import io.ailb.lb.config.ConfigField;
import io.ailb.lb.policy.PolicyRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** The configuration facts the derived files are built from: the registry and the field descriptors. */
final class ConfigCatalog {
    private ConfigCatalog() {}

    /** Policy names that read the same field list (aliases, e.g. endpoint_metrics), in registry order. */
    static Map<List<ConfigField>, List<String>> policyGroups() {
        Map<List<ConfigField>, List<String>> groups = new LinkedHashMap<>();
        for (String name : PolicyRegistry.names()) {
            groups.computeIfAbsent(PolicyRegistry.fields(name), fields -> new ArrayList<>())
                    .add(name);
        }
        return groups;
    }

    /**
     * Every lb_config field of every policy, once, in first-declared order. The console has a single lb_config
     * schema, so two policies declaring a field of the same name must agree on every fact.
     */
    static Map<String, ConfigField> lbConfigFields() {
        Map<String, ConfigField> union = new LinkedHashMap<>();
        Map<String, String> declaredBy = new LinkedHashMap<>();
        for (String name : PolicyRegistry.names()) {
            for (ConfigField field : PolicyRegistry.fields(name)) {
                ConfigField seen = union.putIfAbsent(field.name(), field);
                declaredBy.putIfAbsent(field.name(), name);
                if (seen != null && seen != field && !facts(seen).equals(facts(field))) {
                    throw new IllegalStateException("lb_config field " + field.name() + " is declared differently by "
                            + declaredBy.get(field.name()) + " " + facts(seen) + " and by " + name + " "
                            + facts(field) + ": the console has one lb_config schema, so give both the same facts "
                            + "(share one descriptor) or different names");
                }
            }
        }
        return union;
    }

    /** The policies whose lb_config has a field of this name, in registry order. */
    static List<String> users(String fieldName) {
        List<String> users = new ArrayList<>();
        for (String name : PolicyRegistry.names()) {
            for (ConfigField field : PolicyRegistry.fields(name)) {
                if (field.name().equals(fieldName)) {
                    users.add(name);
                }
            }
        }
        return users;
    }

    /** The first policy that declares the field: the one its broken-config cases use. */
    static String firstUser(String fieldName) {
        return users(fieldName).get(0);
    }

    static List<String> facts(ConfigField field) {
        return List.of(
                field.type().name(),
                String.valueOf(field.required()),
                String.valueOf(field.defaultValue()),
                String.valueOf(field.minimum()),
                String.valueOf(field.maximum()),
                field.values().toString(),
                String.valueOf(field.namesPolicy()),
                field.unit(),
                Objects.toString(field.doc()));
    }

    /** A bound as the plugin's messages print it: integral values without a fraction. */
    static String number(Number n) {
        double d = n.doubleValue();
        return d == Math.floor(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }
}
