package io.ailb.lb.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * One configuration field, described once: name, type, default, accepted range or values, whether it is required,
 * and a one-line doc. The field's reader validates with exactly these facts, and the console schema
 * ({@code higress-config/spec.yaml}), the README field tables and the refused examples
 * ({@code higress-config/broken-configs.yaml}) are generated from and checked against them, so the check and the
 * documentation cannot differ.
 *
 * <p>Descriptors are static constants built once when their class initialises; reading one costs what the typed
 * {@link ConfigView} read it delegates to costs. Outside this package a config value can only be read through a
 * descriptor.
 */
public abstract class ConfigField {
    /** The JSON type of a field's value. */
    public enum Type {
        STRING,
        INTEGER,
        NUMBER,
        BOOLEAN,
        OBJECT,
        STRING_LIST,
        OBJECT_LIST
    }

    private final String name;
    private final Type type;
    private final boolean required;
    private final String doc;
    private final String requiredWhen;

    ConfigField(String name, Type type, boolean required, String doc) {
        this(name, type, required, doc, null);
    }

    ConfigField(String name, Type type, boolean required, String doc, String requiredWhen) {
        this.name = name;
        this.type = type;
        this.required = required;
        this.doc = doc;
        this.requiredWhen = requiredWhen;
    }

    /** An unmodifiable list of descriptors, in the order the docs show them. */
    public static List<ConfigField> list(ConfigField... fields) {
        return Collections.unmodifiableList(Arrays.asList(fields));
    }

    /** {@code first} followed by {@code more}, unmodifiable. */
    public static List<ConfigField> join(List<ConfigField> first, ConfigField... more) {
        List<ConfigField> all = new ArrayList<>(first);
        all.addAll(Arrays.asList(more));
        return Collections.unmodifiableList(all);
    }

    public String name() {
        return name;
    }

    public Type type() {
        return type;
    }

    /** True when the config is refused without this field. */
    public boolean required() {
        return required;
    }

    /**
     * For a required field that one policy needs only in some settings (the Redis fields of cluster_metrics), the
     * setting, e.g. {@code global_inflight_enabled is true}; null when the field is always required or optional. The
     * policy reads such a field only when the setting holds, or when it is present.
     */
    public String requiredWhen() {
        return requiredWhen;
    }

    /** What the field means, one plain-text line. */
    public String doc() {
        return doc;
    }

    /**
     * The value an absent field takes (Integer, Double, String, Boolean, or an empty List for lists), or null when the
     * field is required or absence means "none".
     */
    public abstract Object defaultValue();

    /** The unit of a number ({@code ms}, {@code s}, {@code minutes}), or "" when it has none. */
    public String unit() {
        return "";
    }

    /** The smallest accepted value of a number, or null when there is no lower bound. */
    public Number minimum() {
        return null;
    }

    /** The largest accepted value of a number, or null when there is no upper bound. */
    public Number maximum() {
        return null;
    }

    /** The only values a string field accepts; empty when it accepts any string. */
    public List<String> values() {
        return Collections.emptyList();
    }

    /** True when the value must name a registered policy (the registry holds the accepted names). */
    public boolean namesPolicy() {
        return false;
    }

    @Override
    public String toString() {
        return name + "(" + type + ")";
    }
}
