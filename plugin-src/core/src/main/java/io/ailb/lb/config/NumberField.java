package io.ailb.lb.config;

/** A finite number field: a JSON number or numeric string within [min, max]; an infinite bound means none. */
public final class NumberField extends ConfigField {
    private final double defaultValue;
    private final double min;
    private final double max;

    private NumberField(String name, double defaultValue, double min, double max, String doc) {
        super(name, Type.NUMBER, false, doc);
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
        return Double.isInfinite(min) ? null : Double.valueOf(min);
    }

    @Override
    public Number maximum() {
        return Double.isInfinite(max) ? null : Double.valueOf(max);
    }
}
