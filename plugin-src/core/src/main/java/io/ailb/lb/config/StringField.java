package io.ailb.lb.config;

/** A string field, optionally required (present and non-empty), optionally naming a registered policy. */
public final class StringField extends ConfigField {
    private final String defaultValue;
    private final boolean namesPolicy;

    private StringField(
            String name, boolean required, String defaultValue, boolean namesPolicy, String doc, String requiredWhen) {
        super(name, Type.STRING, required, doc, requiredWhen);
        this.defaultValue = defaultValue;
        this.namesPolicy = namesPolicy;
    }

    private StringField(String name, boolean required, String defaultValue, boolean namesPolicy, String doc) {
        this(name, required, defaultValue, namesPolicy, doc, null);
    }

    public static StringField optional(String name, String defaultValue, String doc) {
        return new StringField(name, false, defaultValue, false, doc);
    }

    public static StringField required(String name, String doc) {
        return new StringField(name, true, null, false, doc);
    }

    /**
     * A policy name; an optional one reads as "" when absent. The policy registry checks the name when it builds the
     * policy, so the accepted names live in one place.
     */
    public static StringField policyName(String name, boolean required, String doc) {
        return new StringField(name, required, required ? null : "", true, doc);
    }

    /** This required field, needed by one policy only when {@code setting} holds (see {@link #requiredWhen()}). */
    public StringField requiredWhen(String setting) {
        if (!required()) {
            throw new IllegalStateException(name() + " is optional already");
        }
        return new StringField(name(), true, defaultValue, namesPolicy, doc(), setting);
    }

    public String read(ConfigView config) throws ConfigException {
        return required() ? config.requiredString(name()) : config.string(name(), defaultValue);
    }

    /** Null for a required field and for an optional policy name (absent means no policy). */
    @Override
    public Object defaultValue() {
        return namesPolicy ? null : defaultValue;
    }

    @Override
    public boolean namesPolicy() {
        return namesPolicy;
    }
}
