package io.ailb.lb.config;

import java.util.Collections;
import java.util.List;

/** A list of objects (e.g. cluster_hash's {@code clusters}); absent reads as an empty list. */
public final class ObjectListField extends ConfigField {
    private ObjectListField(String name, boolean required, String doc) {
        super(name, Type.OBJECT_LIST, required, doc);
    }

    public static ObjectListField required(String name, String doc) {
        return new ObjectListField(name, true, doc);
    }

    /** One view per element, each with its own path ({@code clusters[2]}); a required list must not be empty. */
    public List<ConfigView> read(ConfigView config) throws ConfigException {
        List<ConfigView> items = config.objectList(name());
        if (required() && items.isEmpty()) {
            throw new ConfigException(config.fieldPath(name()), "is required and must not be empty");
        }
        return items;
    }

    @Override
    public Object defaultValue() {
        return required() ? null : Collections.emptyList();
    }
}
