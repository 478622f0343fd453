package io.ailb.lb.config;

import java.util.Collections;
import java.util.List;

/** A list of non-empty strings; absent reads as an empty list. */
public final class StringListField extends ConfigField {
    private StringListField(String name, String doc) {
        super(name, Type.STRING_LIST, false, doc);
    }

    public static StringListField optional(String name, String doc) {
        return new StringListField(name, doc);
    }

    public List<String> read(ConfigView config) throws ConfigException {
        List<String> values = config.stringList(name());
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i).isEmpty()) {
                throw new ConfigException(config.fieldPath(name()) + "[" + i + "]", "must not be empty");
            }
        }
        return values;
    }

    @Override
    public Object defaultValue() {
        return Collections.emptyList();
    }
}
