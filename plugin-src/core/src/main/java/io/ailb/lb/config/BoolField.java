package io.ailb.lb.config;

/** A boolean field: {@code true}/{@code false} or their strings. */
public final class BoolField extends ConfigField {
    private final boolean defaultValue;

    private BoolField(String name, boolean defaultValue, String doc) {
        super(name, Type.BOOLEAN, false, doc);
        this.defaultValue = defaultValue;
    }

    public static BoolField optional(String name, boolean defaultValue, String doc) {
        return new BoolField(name, defaultValue, doc);
    }

    public boolean read(ConfigView config) throws ConfigException {
        return config.bool(name(), defaultValue);
    }

    @Override
    public Object defaultValue() {
        return Boolean.valueOf(defaultValue);
    }
}
