package io.ailb.lb.config;

/**
 * A finite number field: a JSON number or numeric string within [min, max]. Like {@link IntField}, every number field
 * has both bounds, finite, and its error message states both.
 */
public final class NumberField extends ConfigField {
    private final double defaultValue;
    private final double min;
    private final double max;

    private NumberField(String name, double defaultValue, double min, double max, String doc) {
        super(name, Type.NUMBER, false, doc);
        if (!(min <= defaultValue && defaultValue <= max) || Double.isInfinite(min) || Double.isInfinite(max)) {
            throw new IllegalArgumentException(name + ": needs finite bounds around its default");
        }
        this.defaultValue = defaultValue;
        this.min = min;
        this.max = max;
    }

    public static NumberField optional(String name, double defaultValue, double min, double max, String doc) {
        return new NumberField(name, defaultValue, min, max, doc);
    }

    public double read(ConfigView config) throws ConfigException {
        return config.number(name(), defaultValue, min, max);
    }

    @Override
    public Object defaultValue() {
        return Double.valueOf(defaultValue);
    }

    @Override
    public Number minimum() {
        return Double.valueOf(min);
    }

    @Override
    public Number maximum() {
        return Double.valueOf(max);
    }
}
