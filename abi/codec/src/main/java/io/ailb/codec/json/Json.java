package io.ailb.codec.json;

import io.ailb.codec.util.Utf8;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Builds {@link JsonValue} trees for small documents, iteratively from a {@link JsonReader}. */
public final class Json {
    private Json() {}

    public static JsonValue parse(String text) {
        return parse(Utf8.encode(text));
    }

    public static JsonValue parse(byte[] utf8) {
        return parse(utf8, 0, utf8.length);
    }

    /**
     * Parses a whole document. Duplicate member names are rejected: RFC 8259 leaves their meaning open and Go's gjson
     * and nlohmann disagree on which one wins, so a config that relies on either is refused.
     */
    public static JsonValue parse(byte[] utf8, int offset, int length) {
        JsonReader reader = new JsonReader(utf8, offset, length);
        ArrayDeque<Frame> stack = new ArrayDeque<>();
        JsonValue result = null;
        while (true) {
            JsonReader.Token token = reader.next();
            JsonValue value;
            switch (token) {
                case BEGIN_OBJECT:
                    stack.push(new Frame(true));
                    continue;
                case BEGIN_ARRAY:
                    stack.push(new Frame(false));
                    continue;
                case NAME: {
                    Frame frame = stack.peek();
                    String name = reader.string();
                    if (frame.members.containsKey(name)) {
                        throw new JsonException(reader.tokenStart() - offset, "duplicate member name \"" + name + "\"");
                    }
                    frame.pendingName = name;
                    continue;
                }
                case END_OBJECT:
                    value = JsonValue.object(stack.pop().members);
                    break;
                case END_ARRAY:
                    value = JsonValue.array(stack.pop().elements);
                    break;
                case STRING:
                    value = JsonValue.string(reader.string());
                    break;
                case NUMBER:
                    value = JsonValue.number(reader.numberLexeme());
                    break;
                case TRUE:
                    value = JsonValue.TRUE;
                    break;
                case FALSE:
                    value = JsonValue.FALSE;
                    break;
                case NULL:
                    value = JsonValue.NULL;
                    break;
                default:
                    return result;
            }
            if (stack.isEmpty()) {
                result = value;
            } else {
                stack.peek().add(value);
            }
        }
    }

    /** An open container while building. */
    private static final class Frame {
        final Map<String, JsonValue> members;
        final List<JsonValue> elements;
        String pendingName;

        Frame(boolean object) {
            members = object ? new LinkedHashMap<>() : null;
            elements = object ? null : new ArrayList<>();
        }

        void add(JsonValue value) {
            if (members != null) {
                members.put(pendingName, value);
            } else {
                elements.add(value);
            }
        }
    }
}
