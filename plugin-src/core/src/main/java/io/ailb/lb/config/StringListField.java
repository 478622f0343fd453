package io.ailb.lb.config;

import java.util.Collections;
import java.util.List;

/** A list of non-empty strings; absent reads as an empty list (a required one is refused). */
public final class StringListField extends ConfigField {
    private StringListField(String name, boolean required, String doc) {
        super(name, Type.STRING_LIST, required, doc);
    }

    public static StringListField optional(String name, String doc) {
        return new StringListField(name, false, doc);
    }

    /** A list that must be present and hold at least one string. */
    public static StringListField required(String name, String doc) {
        return new StringListField(name, true, doc);
    }

    public List<String> read(ConfigView config) throws ConfigException {
        List<String> values = config.stringList(name());
        if (required() && values.isEmpty()) {
            throw new ConfigException(config.fieldPath(name()), "is required and must not be empty");
        }
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i).isEmpty()) {
                throw new ConfigException(config.fieldPath(name()) + "[" + i + "]", "must not be empty");
            }
        }
        return values;
    }

    @Override
    public Object defaultValue() {
        return required() ? null : Collections.emptyList();
    }
}
