package io.ailb.codec.json;

import io.ailb.codec.util.Utf8;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Map;

/**
 * Minimal compact JSON writer for logs and attributes. Commas are inserted automatically; the caller is trusted to
 * pair begin/end calls and to put a {@link #name(String)} before each object member.
 */
public final class JsonWriter {
    private final StringBuilder out = new StringBuilder();
    /** One entry per open container: true until its first element is written. */
    private boolean[] first = new boolean[16];

    private int depth;
    private boolean afterName;

    public JsonWriter beginObject() {
        separate();
        out.append('{');
        push();
        return this;
    }

    public JsonWriter endObject() {
        depth--;
        out.append('}');
        return this;
    }

    public JsonWriter beginArray() {
        separate();
        out.append('[');
        push();
        return this;
    }

    public JsonWriter endArray() {
        depth--;
        out.append(']');
        return this;
    }

    public JsonWriter name(String name) {
        separate();
        appendString(name);
        out.append(':');
        afterName = true;
        return this;
    }

    /** A string value; null writes {@code null}. */
    public JsonWriter value(String value) {
        separate();
        if (value == null) {
            out.append("null");
        } else {
            appendString(value);
        }
        return this;
    }

    public JsonWriter value(long value) {
        separate();
        out.append(value);
        return this;
    }

    /** A finite double; NaN and infinities have no JSON form. */
    public JsonWriter value(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            throw new IllegalArgumentException("not a finite number: " + value);
        }
        separate();
        if (value == Math.floor(value) && Math.abs(value) < 1e15) {
            out.append((long) value);
        } else {
            out.append(Double.toString(value));
        }
        return this;
    }

    public JsonWriter value(boolean value) {
        separate();
        out.append(value ? "true" : "false");
        return this;
    }

    public JsonWriter nullValue() {
        separate();
        out.append("null");
        return this;
    }

    /** A whole tree, written without recursion. */
    public JsonWriter value(JsonValue value) {
        // Each frame is an iterator over the members or elements of an open container.
        ArrayDeque<Iterator<?>> stack = new ArrayDeque<>();
        ArrayDeque<Boolean> isObject = new ArrayDeque<>();
        JsonValue current = value;
        while (true) {
            if (current != null) {
                switch (current.kind()) {
                    case OBJECT:
                        beginObject();
                        stack.push(current.members().entrySet().iterator());
                        isObject.push(Boolean.TRUE);
                        break;
                    case ARRAY:
                        beginArray();
                        stack.push(current.elements().iterator());
                        isObject.push(Boolean.FALSE);
                        break;
                    case STRING:
                        value(current.asString());
                        break;
                    case NUMBER:
                        separate();
                        out.append(current.numberLexeme());
                        break;
                    case BOOLEAN:
                        value(current.asBoolean());
                        break;
                    default:
                        nullValue();
                        break;
                }
                current = null;
            }
            if (stack.isEmpty()) {
                return this;
            }
            Iterator<?> top = stack.peek();
            if (!top.hasNext()) {
                stack.pop();
                if (isObject.pop()) {
                    endObject();
                } else {
                    endArray();
                }
                continue;
            }
            Object next = top.next();
            if (next instanceof Map.Entry) {
                Map.Entry<?, ?> entry = (Map.Entry<?, ?>) next;
                name((String) entry.getKey());
                current = (JsonValue) entry.getValue();
            } else {
                current = (JsonValue) next;
            }
        }
    }

    /** The JSON text written so far. */
    @Override
    public String toString() {
        return out.toString();
    }

    public byte[] toBytes() {
        return Utf8.encode(out.toString());
    }

    private void push() {
        if (depth == first.length) {
            boolean[] grown = new boolean[depth * 2];
            System.arraycopy(first, 0, grown, 0, depth);
            first = grown;
        }
        first[depth++] = true;
    }

    private void separate() {
        if (afterName) {
            afterName = false;
            return;
        }
        if (depth > 0) {
            if (first[depth - 1]) {
                first[depth - 1] = false;
            } else {
                out.append(',');
            }
        }
    }

    private void appendString(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    out.append("\\\"");
                    break;
                case '\\':
                    out.append("\\\\");
                    break;
                case '\n':
                    out.append("\\n");
                    break;
                case '\r':
                    out.append("\\r");
                    break;
                case '\t':
                    out.append("\\t");
                    break;
                case '\b':
                    out.append("\\b");
                    break;
                case '\f':
                    out.append("\\f");
                    break;
                default:
                    if (c < 0x20 || isLoneSurrogate(s, i)) {
                        appendUnicodeEscape(c);
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }

    /** A lone surrogate has no UTF-8 form, so it is written as an escape to keep the output valid. */
    private static boolean isLoneSurrogate(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
        }
        if (Character.isLowSurrogate(c)) {
            return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1));
        }
        return false;
    }

    private void appendUnicodeEscape(char c) {
        String hex = "0123456789abcdef";
        out.append("\\u")
                .append(hex.charAt((c >> 12) & 0xF))
                .append(hex.charAt((c >> 8) & 0xF))
                .append(hex.charAt((c >> 4) & 0xF))
                .append(hex.charAt(c & 0xF));
    }
}
