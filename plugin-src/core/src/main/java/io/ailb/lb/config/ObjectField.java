package io.ailb.lb.config;

/** A nested object field; absent reads as an empty object with the field's path. */
public final class ObjectField extends ConfigField {
    private ObjectField(String name, String doc) {
        super(name, Type.OBJECT, false, doc);
    }

    public static ObjectField optional(String name, String doc) {
        return new ObjectField(name, doc);
    }

    public ConfigView read(ConfigView config) throws ConfigException {
        return config.object(name());
    }

    /** Null: an absent object is an empty one, not a value to show. */
    @Override
    public Object defaultValue() {
        return null;
    }
}
