package io.ailb.lb.config;

import io.ailb.codec.json.JsonNumbers;
import io.ailb.codec.json.JsonValue;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;

/**
 * One JSON object of the plugin config with its path, read with Go-plugin-compatible leniency (numbers may be given as
 * numeric strings, booleans as "true"/"false", like gjson) but with strict range and type errors. A JSON {@code null}
 * counts as absent: YAML {@code key:} with no value becomes null.
 *
 * <p>The typed reads are package-private: code outside this package reads a field through its {@link ConfigField}
 * descriptor, so what is checked is what the docs generated from the descriptors say.
 */
public final class ConfigView {
    /** Offending values longer than this are cut in messages. */
    private static final int MAX_VALUE_CHARS = 64;

    private final JsonValue object;
    private final String path;

    private ConfigView(JsonValue object, String path) {
        this.object = object;
        this.path = path;
    }

    /** The whole document; {@code object} must be a JSON object. */
    public static ConfigView root(JsonValue object) {
        return of(object, "");
    }

    /** An object at a given path; {@code object} must be a JSON object. */
    public static ConfigView of(JsonValue object, String path) {
        if (object == null || !object.isObject()) {
            throw new IllegalArgumentException("not a JSON object: " + object);
        }
        return new ConfigView(object, path);
    }

    /** An empty object at a given path. */
    public static ConfigView empty(String path) {
        return new ConfigView(JsonValue.object(new LinkedHashMap<>()), path);
    }

    public String path() {
        return path;
    }

    public String fieldPath(String field) {
        return path.isEmpty() ? field : path + "." + field;
    }

    /** True when the field is present and not null. */
    public boolean has(String field) {
        JsonValue value = object.get(field);
        return value != null && !value.isNull();
    }

    /** Field names in document order. */
    public Set<String> fields() {
        return object.members().keySet();
    }

    public boolean isEmpty() {
        return object.size() == 0;
    }

    /** The raw value of a field, or null when absent. */
    public JsonValue raw(String field) {
        return object.get(field);
    }

    /** The object this view reads. */
    public JsonValue json() {
        return object;
    }

    String string(String field, String defaultValue) throws ConfigException {
        JsonValue value = present(field);
        if (value == null) {
            return defaultValue;
        }
        if (!value.isString()) {
            throw new ConfigException(fieldPath(field), "must be a string");
        }
        return value.asString();
    }

    /** A string that must be present and non-empty. */
    String requiredString(String field) throws ConfigException {
        String value = string(field, null);
        if (value == null || value.isEmpty()) {
            throw new ConfigException(fieldPath(field), "is required");
        }
        return value;
    }

    /** An integer from an integral JSON number or a numeric string, within [min, max]. */
    int integer(String field, int defaultValue, int min, int max) throws ConfigException {
        JsonValue value = present(field);
        if (value == null) {
            return defaultValue;
        }
        return toInteger(field, value, min, max);
    }

    int requiredInteger(String field, int min, int max) throws ConfigException {
        JsonValue value = present(field);
        if (value == null) {
            throw new ConfigException(fieldPath(field), "is required");
        }
        return toInteger(field, value, min, max);
    }

    /** A finite number from a JSON number or a numeric string, within [min, max]. */
    double number(String field, double defaultValue, double min, double max) throws ConfigException {
        JsonValue value = present(field);
        if (value == null) {
            return defaultValue;
        }
        String lexeme = lexeme(value);
        if (lexeme != null) {
            double d = Double.parseDouble(lexeme);
            if (!Double.isInfinite(d) && d >= min && d <= max) {
                return d;
            }
        }
        throw new ConfigException(fieldPath(field), render(value), "must be a number" + bounds(min, max));
    }

    /** {@code true}/{@code false}, or the strings "true"/"false". */
    boolean bool(String field, boolean defaultValue) throws ConfigException {
        JsonValue value = present(field);
        if (value == null) {
            return defaultValue;
        }
        if (value.isBoolean()) {
            return value.asBoolean();
        }
        if (value.isString()
                && (value.asString().equals("true") || value.asString().equals("false"))) {
            return value.asString().equals("true");
        }
        throw new ConfigException(fieldPath(field), render(value), "must be true or false");
    }

    /** One of {@code values}; absent or "" → the default. */
    String oneOf(String field, String defaultValue, List<String> values) throws ConfigException {
        String value = string(field, "");
        if (value.isEmpty()) {
            return defaultValue;
        }
        if (values.contains(value)) {
            return value;
        }
        throw new ConfigException(
                fieldPath(field),
                render(present(field)),
                values.size() == 1 ? "must be " + values.get(0) : "must be one of " + String.join(", ", values));
    }

    /** A list of strings; absent → empty list. */
    List<String> stringList(String field) throws ConfigException {
        JsonValue value = present(field);
        if (value == null) {
            return Collections.emptyList();
        }
        if (!value.isArray()) {
            throw new ConfigException(fieldPath(field), "must be a list of strings");
        }
        List<String> result = new ArrayList<>(value.size());
        for (int i = 0; i < value.size(); i++) {
            JsonValue element = value.get(i);
            if (!element.isString()) {
                throw new ConfigException(fieldPath(field) + "[" + i + "]", "must be a string");
            }
            result.add(element.asString());
        }
        return Collections.unmodifiableList(result);
    }

    /** A list of objects, each a view with its element path; absent → empty list. */
    List<ConfigView> objectList(String field) throws ConfigException {
        JsonValue value = present(field);
        if (value == null) {
            return Collections.emptyList();
        }
        if (!value.isArray()) {
            throw new ConfigException(fieldPath(field), "must be a list of objects");
        }
        List<ConfigView> result = new ArrayList<>(value.size());
        for (int i = 0; i < value.size(); i++) {
            JsonValue element = value.get(i);
            String elementPath = fieldPath(field) + "[" + i + "]";
            if (!element.isObject()) {
                throw new ConfigException(elementPath, "must be an object");
            }
            result.add(new ConfigView(element, elementPath));
        }
        return Collections.unmodifiableList(result);
    }

    /** A nested object; absent → an empty view with the right path. */
    ConfigView object(String field) throws ConfigException {
        JsonValue value = present(field);
        if (value == null) {
            return empty(fieldPath(field));
        }
        if (!value.isObject()) {
            throw new ConfigException(fieldPath(field), "must be an object");
        }
        return new ConfigView(value, fieldPath(field));
    }

    private JsonValue present(String field) {
        JsonValue value = object.get(field);
        return value == null || value.isNull() ? null : value;
    }

    private int toInteger(String field, JsonValue value, int min, int max) throws ConfigException {
        String lexeme = lexeme(value);
        if (lexeme != null && JsonNumbers.isIntegral(lexeme)) {
            long n = JsonNumbers.toLong(lexeme);
            if (n >= min && n <= max) {
                return (int) n;
            }
        }
        throw new ConfigException(fieldPath(field), render(value), "must be an integer" + bounds(min, max));
    }

    /** The number lexeme of a number or of a numeric string, else null. */
    private static String lexeme(JsonValue value) {
        if (value.isNumber()) {
            return value.numberLexeme();
        }
        if (value.isString() && JsonNumbers.isValidLexeme(value.asString())) {
            return value.asString();
        }
        return null;
    }

    private static String render(JsonValue value) {
        String text = value.isString() ? value.asString() : value.toJson();
        return text.length() > MAX_VALUE_CHARS ? text.substring(0, MAX_VALUE_CHARS) + "..." : text;
    }

    /** Both bounds, always: every int or number field has both, and says so. */
    private static String bounds(long min, long max) {
        return " in [" + min + ", " + max + "]";
    }

    private static String bounds(double min, double max) {
        return " in [" + format(min) + ", " + format(max) + "]";
    }

    private static String format(double d) {
        return d == Math.floor(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }
}
