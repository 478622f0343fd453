package io.ailb.codec.json;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An immutable JSON value for small documents (configs, host info). Objects keep member order; numbers keep their
 * lexeme so integers stay exact.
 */
public final class JsonValue {

    public enum Kind {
        OBJECT,
        ARRAY,
        STRING,
        NUMBER,
        BOOLEAN,
        NULL
    }

    public static final JsonValue NULL = new JsonValue(Kind.NULL, null, null, null, false);
    public static final JsonValue TRUE = new JsonValue(Kind.BOOLEAN, null, null, null, true);
    public static final JsonValue FALSE = new JsonValue(Kind.BOOLEAN, null, null, null, false);

    private final Kind kind;
    /** String content, or the number lexeme. */
    private final String text;

    private final Map<String, JsonValue> members;
    private final List<JsonValue> elements;
    private final boolean bool;

    private JsonValue(Kind kind, String text, Map<String, JsonValue> members, List<JsonValue> elements, boolean bool) {
        this.kind = kind;
        this.text = text;
        this.members = members;
        this.elements = elements;
        this.bool = bool;
    }

    public static JsonValue string(String value) {
        if (value == null) {
            throw new IllegalArgumentException("null string");
        }
        return new JsonValue(Kind.STRING, value, null, null, false);
    }

    /** A number from its JSON lexeme; the lexeme must follow RFC 8259 number syntax. */
    public static JsonValue number(String lexeme) {
        if (!JsonNumbers.isValidLexeme(lexeme)) {
            throw new IllegalArgumentException("not a JSON number: " + lexeme);
        }
        return new JsonValue(Kind.NUMBER, lexeme, null, null, false);
    }

    public static JsonValue number(long value) {
        return new JsonValue(Kind.NUMBER, Long.toString(value), null, null, false);
    }

    public static JsonValue bool(boolean value) {
        return value ? TRUE : FALSE;
    }

    /** An object with the members in the map's iteration order (copied). */
    public static JsonValue object(Map<String, JsonValue> members) {
        return new JsonValue(Kind.OBJECT, null, Collections.unmodifiableMap(new LinkedHashMap<>(members)), null, false);
    }

    /** An array of the given elements (copied). */
    public static JsonValue array(List<JsonValue> elements) {
        return new JsonValue(Kind.ARRAY, null, null, Collections.unmodifiableList(new ArrayList<>(elements)), false);
    }

    public Kind kind() {
        return kind;
    }

    public boolean isObject() {
        return kind == Kind.OBJECT;
    }

    public boolean isArray() {
        return kind == Kind.ARRAY;
    }

    public boolean isString() {
        return kind == Kind.STRING;
    }

    public boolean isNumber() {
        return kind == Kind.NUMBER;
    }

    public boolean isBoolean() {
        return kind == Kind.BOOLEAN;
    }

    public boolean isNull() {
        return kind == Kind.NULL;
    }

    public String asString() {
        require(Kind.STRING);
        return text;
    }

    /** The number exactly as written in the document. */
    public String numberLexeme() {
        require(Kind.NUMBER);
        return text;
    }

    /** True for a number with an integral value that fits a long ({@code 10}, {@code 1e3}, {@code 2.0}). */
    public boolean isIntegral() {
        return kind == Kind.NUMBER && JsonNumbers.isIntegral(text);
    }

    /** The exact value of an integral number; throws if {@link #isIntegral()} is false. */
    public long asLong() {
        require(Kind.NUMBER);
        if (!JsonNumbers.isIntegral(text)) {
            throw new IllegalStateException("not an integral number: " + text);
        }
        return JsonNumbers.toLong(text);
    }

    public double asDouble() {
        require(Kind.NUMBER);
        return Double.parseDouble(text);
    }

    public boolean asBoolean() {
        require(Kind.BOOLEAN);
        return bool;
    }

    /** The members of an object, in document order (unmodifiable). */
    public Map<String, JsonValue> members() {
        require(Kind.OBJECT);
        return members;
    }

    /** The elements of an array (unmodifiable). */
    public List<JsonValue> elements() {
        require(Kind.ARRAY);
        return elements;
    }

    /** An object member, or null when absent or when this is not an object. */
    public JsonValue get(String name) {
        return kind == Kind.OBJECT ? members.get(name) : null;
    }

    /** An array element, or null when out of range or when this is not an array. */
    public JsonValue get(int index) {
        return kind == Kind.ARRAY && index >= 0 && index < elements.size() ? elements.get(index) : null;
    }

    /** Member count of an object, element count of an array, 0 otherwise. */
    public int size() {
        if (kind == Kind.OBJECT) {
            return members.size();
        }
        return kind == Kind.ARRAY ? elements.size() : 0;
    }

    /** Compact JSON text. */
    public String toJson() {
        JsonWriter writer = new JsonWriter();
        writer.value(this);
        return writer.toString();
    }

    @Override
    public String toString() {
        return toJson();
    }

    @Override
    public boolean equals(Object other) {
        if (this == other) {
            return true;
        }
        if (!(other instanceof JsonValue)) {
            return false;
        }
        JsonValue that = (JsonValue) other;
        if (kind != that.kind) {
            return false;
        }
        switch (kind) {
            case OBJECT:
                return members.equals(that.members);
            case ARRAY:
                return elements.equals(that.elements);
            case STRING:
            case NUMBER:
                return text.equals(that.text);
            case BOOLEAN:
                return bool == that.bool;
            default:
                return true;
        }
    }

    @Override
    public int hashCode() {
        switch (kind) {
            case OBJECT:
                return members.hashCode();
            case ARRAY:
                return elements.hashCode();
            case STRING:
            case NUMBER:
                return text.hashCode() * 31 + kind.ordinal();
            case BOOLEAN:
                return bool ? 1231 : 1237;
            default:
                return 0;
        }
    }

    private void require(Kind expected) {
        if (kind != expected) {
            throw new IllegalStateException("expected " + expected + " but was " + kind);
        }
    }
}
