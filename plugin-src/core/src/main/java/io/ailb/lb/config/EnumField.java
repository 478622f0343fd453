package io.ailb.lb.config;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/** A string field with a fixed set of values; absent or "" reads as the default. */
public final class EnumField extends ConfigField {
    private final String defaultValue;
    private final List<String> values;

    private EnumField(String name, String defaultValue, List<String> values, String doc) {
        super(name, Type.STRING, false, doc);
        this.defaultValue = defaultValue;
        this.values = values;
    }

    /** {@code values} in the order messages and docs list them. */
    public static EnumField optional(String name, String defaultValue, String doc, String... values) {
        return new EnumField(name, defaultValue, Collections.unmodifiableList(Arrays.asList(values)), doc);
    }

    public String read(ConfigView config) throws ConfigException {
        return config.oneOf(name(), defaultValue, values);
    }

    @Override
    public Object defaultValue() {
        return defaultValue;
    }

    @Override
    public List<String> values() {
        return values;
    }
}
