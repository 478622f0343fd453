package io.ailb.lb.config;

/**
 * An integer field: an integral JSON number or numeric string within [min, max]. Every integer field has both bounds
 * (at most {@link Integer#MAX_VALUE}), and its error message states both.
 */
public final class IntField extends ConfigField {
    private final int defaultValue;
    private final int min;
    private final int max;
    private final String unit;

    private IntField(String name, boolean required, int defaultValue, int min, int max, String unit, String doc) {
        this(name, required, defaultValue, min, max, unit, doc, null);
    }

    private IntField(
            String name,
            boolean required,
            int defaultValue,
            int min,
            int max,
            String unit,
            String doc,
            String requiredWhen) {
        super(name, Type.INTEGER, required, doc, requiredWhen);
        this.defaultValue = defaultValue;
        this.min = min;
        this.max = max;
        this.unit = unit;
    }

    /** {@code unit} is "" for a plain count. */
    public static IntField optional(String name, int defaultValue, int min, int max, String unit, String doc) {
        return new IntField(name, false, defaultValue, min, max, unit, doc);
    }

    public static IntField required(String name, int min, int max, String unit, String doc) {
        return new IntField(name, true, 0, min, max, unit, doc);
    }

    /** This required field, needed by one policy only when {@code setting} holds (see {@link #requiredWhen()}). */
    public IntField requiredWhen(String setting) {
        if (!required()) {
            throw new IllegalStateException(name() + " is optional already");
        }
        return new IntField(name(), true, defaultValue, min, max, unit, doc(), setting);
    }

    public int read(ConfigView config) throws ConfigException {
        return required() ? config.requiredInteger(name(), min, max) : config.integer(name(), defaultValue, min, max);
    }

    @Override
    public Object defaultValue() {
        return required() ? null : Integer.valueOf(defaultValue);
    }

    @Override
    public String unit() {
        return unit;
    }

    @Override
    public Number minimum() {
        return Integer.valueOf(min);
    }

    @Override
    public Number maximum() {
        return Integer.valueOf(max);
    }
}
