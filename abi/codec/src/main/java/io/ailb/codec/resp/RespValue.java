package io.ailb.codec.resp;

import io.ailb.codec.util.Utf8;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * One immutable RESP value. Tree walks ({@link #equals}, {@link #hashCode}, {@link #toString}) use an explicit stack,
 * so arbitrarily nested values never overflow the (Wasm) call stack.
 */
public final class RespValue {

    /** RESP2 kinds; RESP3 replies are mapped onto these by {@link RespDecoder}. */
    public enum Kind {
        SIMPLE_STRING,
        ERROR,
        INTEGER,
        BULK_STRING,
        ARRAY,
        NULL
    }

    /** The null bulk string / null array ({@code $-1}, {@code *-1}). */
    public static final RespValue NULL = new RespValue(Kind.NULL, null, 0, null);

    private static final RespValue EMPTY_ARRAY = new RespValue(Kind.ARRAY, null, 0, Collections.emptyList());
    private static final int LOG_BYTES_PER_STRING = 200;

    private final Kind kind;
    private final byte[] bytes;
    private final long integer;
    private final List<RespValue> elements;

    private RespValue(Kind kind, byte[] bytes, long integer, List<RespValue> elements) {
        this.kind = kind;
        this.bytes = bytes;
        this.integer = integer;
        this.elements = elements;
    }

    public static RespValue simpleString(String text) {
        return new RespValue(Kind.SIMPLE_STRING, utf8(text), 0, null);
    }

    /** An error reply; {@code message} is the text after the '-', e.g. {@code "NOSCRIPT No matching script."}. */
    public static RespValue error(String message) {
        return new RespValue(Kind.ERROR, utf8(message), 0, null);
    }

    public static RespValue integer(long value) {
        return new RespValue(Kind.INTEGER, null, value, null);
    }

    public static RespValue bulkString(byte[] data) {
        return new RespValue(Kind.BULK_STRING, data.clone(), 0, null);
    }

    public static RespValue bulkString(String text) {
        return new RespValue(Kind.BULK_STRING, utf8(text), 0, null);
    }

    public static RespValue array(List<RespValue> elements) {
        List<RespValue> copy = new ArrayList<>(elements.size());
        for (RespValue element : elements) {
            if (element == null) {
                throw new NullPointerException("array element");
            }
            copy.add(element);
        }
        return ownedArray(copy);
    }

    public static RespValue array(RespValue... elements) {
        return array(Arrays.asList(elements));
    }

    /** Used by the decoder: takes ownership of {@code bytes} without copying. */
    static RespValue ofOwnedBytes(Kind kind, byte[] bytes) {
        return new RespValue(kind, bytes, 0, null);
    }

    /** Used by the decoder: takes ownership of {@code elements} without copying. */
    static RespValue ownedArray(List<RespValue> elements) {
        if (elements.isEmpty()) {
            return EMPTY_ARRAY;
        }
        return new RespValue(Kind.ARRAY, null, 0, Collections.unmodifiableList(elements));
    }

    public Kind kind() {
        return kind;
    }

    public boolean isError() {
        return kind == Kind.ERROR;
    }

    public boolean isNull() {
        return kind == Kind.NULL;
    }

    /**
     * The UTF-8 text of a simple string, bulk string or error; the decimal form of an integer; {@code null} for NULL.
     *
     * @throws IllegalStateException for an array
     */
    public String asString() {
        switch (kind) {
            case SIMPLE_STRING:
            case ERROR:
            case BULK_STRING:
                return Utf8.decode(bytes);
            case INTEGER:
                return Long.toString(integer);
            case NULL:
                return null;
            default:
                throw wrongKind("a string");
        }
    }

    /**
     * A copy of the raw bytes of a simple string, bulk string or error.
     *
     * @throws IllegalStateException for other kinds
     */
    public byte[] asBytes() {
        if (bytes == null) {
            throw wrongKind("bytes");
        }
        return bytes.clone();
    }

    /** The bytes themselves, for the encoder in this package, which never modifies them. */
    byte[] rawBytes() {
        if (bytes == null) {
            throw wrongKind("bytes");
        }
        return bytes;
    }

    /**
     * An integer reply, or a simple/bulk string holding a decimal integer (Lua scripts often return numbers as
     * strings).
     *
     * @throws IllegalStateException if the value is neither
     */
    public long asLong() {
        if (kind == Kind.INTEGER) {
            return integer;
        }
        if (kind == Kind.BULK_STRING || kind == Kind.SIMPLE_STRING) {
            Long parsed = Decimal.parse(bytes, 0, bytes.length);
            if (parsed != null) {
                return parsed;
            }
        }
        throw wrongKind("an integer");
    }

    /**
     * The elements of an array (unmodifiable).
     *
     * @throws IllegalStateException for other kinds, including NULL
     */
    public List<RespValue> elements() {
        if (kind != Kind.ARRAY) {
            throw wrongKind("an array");
        }
        return elements;
    }

    /** The first word of an error ({@code "NOSCRIPT"}, {@code "NOAUTH"}, {@code "ERR"}); "" when not an error. */
    public String errorCode() {
        if (kind != Kind.ERROR) {
            return "";
        }
        int end = 0;
        while (end < bytes.length && bytes[end] != ' ') {
            end++;
        }
        return Utf8.decode(bytes, 0, end);
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof RespValue)) {
            return false;
        }
        // Same pre-order sequence of nodes with the same array sizes means the same tree.
        ArrayDeque<RespValue> left = new ArrayDeque<>();
        ArrayDeque<RespValue> right = new ArrayDeque<>();
        left.push(this);
        right.push((RespValue) other);
        while (!left.isEmpty()) {
            RespValue a = left.pop();
            RespValue b = right.pop();
            if (a == b) {
                continue;
            }
            if (a.kind != b.kind || a.integer != b.integer || !Arrays.equals(a.bytes, b.bytes)) {
                return false;
            }
            if (a.kind == Kind.ARRAY) {
                if (a.elements.size() != b.elements.size()) {
                    return false;
                }
                for (int i = 0; i < a.elements.size(); i++) {
                    left.push(a.elements.get(i));
                    right.push(b.elements.get(i));
                }
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int hash = 1;
        ArrayDeque<RespValue> pending = new ArrayDeque<>();
        pending.push(this);
        while (!pending.isEmpty()) {
            RespValue value = pending.pop();
            hash = 31 * hash + value.kind.ordinal();
            hash = 31 * hash + (int) (value.integer ^ (value.integer >>> 32));
            hash = 31 * hash + Arrays.hashCode(value.bytes);
            if (value.kind == Kind.ARRAY) {
                hash = 31 * hash + value.elements.size();
                for (RespValue element : value.elements) {
                    pending.push(element);
                }
            }
        }
        return hash;
    }

    /**
     * A redis-cli like rendering for logs: {@code "text"} for bulk strings (escaped, long ones cut), {@code +OK},
     * {@code -ERR message}, {@code :42}, {@code nil}, {@code [a, b]}.
     */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        // Holds RespValues still to render and String tokens (", " and "]") to append verbatim.
        ArrayDeque<Object> pending = new ArrayDeque<>();
        pending.push(this);
        while (!pending.isEmpty()) {
            Object next = pending.pop();
            if (next instanceof String) {
                out.append((String) next);
                continue;
            }
            RespValue value = (RespValue) next;
            switch (value.kind) {
                case SIMPLE_STRING:
                    out.append('+');
                    appendEscaped(out, value.bytes);
                    break;
                case ERROR:
                    out.append('-');
                    appendEscaped(out, value.bytes);
                    break;
                case INTEGER:
                    out.append(':').append(value.integer);
                    break;
                case BULK_STRING:
                    out.append('"');
                    appendEscaped(out, value.bytes);
                    out.append('"');
                    break;
                case NULL:
                    out.append("nil");
                    break;
                default:
                    out.append('[');
                    pending.push("]");
                    for (int i = value.elements.size() - 1; i >= 0; i--) {
                        pending.push(value.elements.get(i));
                        if (i > 0) {
                            pending.push(", ");
                        }
                    }
                    break;
            }
        }
        return out.toString();
    }

    private static void appendEscaped(StringBuilder out, byte[] data) {
        int shown = Math.min(data.length, LOG_BYTES_PER_STRING);
        for (int i = 0; i < shown; i++) {
            int b = data[i] & 0xFF;
            if (b == '"' || b == '\\') {
                out.append('\\').append((char) b);
            } else if (b >= 0x20 && b < 0x7F) {
                out.append((char) b);
            } else {
                out.append("\\x").append(Character.forDigit(b >> 4, 16)).append(Character.forDigit(b & 0xF, 16));
            }
        }
        if (shown < data.length) {
            out.append("...(").append(data.length).append(" bytes)");
        }
    }

    private IllegalStateException wrongKind(String wanted) {
        return new IllegalStateException("RESP " + kind + " is not " + wanted + ": " + this);
    }

    private static byte[] utf8(String text) {
        return Utf8.encode(text);
    }
}
