package io.ailb.codec.json;

import io.ailb.codec.util.ByteAccess;
import io.ailb.codec.util.Utf8;
import java.nio.charset.StandardCharsets;

/**
 * A strict RFC 8259 pull parser over UTF-8 bytes. Linear time, no recursion, no tree: strings and numbers are only
 * located while scanning and decoded on demand, so skipped values cost no allocation.
 *
 * <p>Usage: call {@link #next()} until {@link Token#END_DOCUMENT}; after a NAME or STRING token read it with
 * {@link #string()}, {@link #stringEquals(String)} or {@link #stringUtf8(ByteSink)}; after a NUMBER with
 * {@link #numberAsLong()} or {@link #numberAsDouble()}. Every syntax error, invalid UTF-8 in a string, or nesting deeper
 * than the limit throws {@link JsonException}. Positions are byte offsets relative to the start of the parsed range.
 */
public final class JsonReader {

    public enum Token {
        BEGIN_OBJECT,
        END_OBJECT,
        BEGIN_ARRAY,
        END_ARRAY,
        NAME,
        STRING,
        NUMBER,
        TRUE,
        FALSE,
        NULL,
        END_DOCUMENT
    }

    public static final int DEFAULT_MAX_DEPTH = 64;

    private static final int DECODE_BUFFER_BYTES = 4096;

    private static final int START = 0;
    private static final int AFTER_BEGIN_OBJECT = 1;
    private static final int AFTER_BEGIN_ARRAY = 2;
    private static final int EXPECT_NAME = 3;
    private static final int EXPECT_VALUE = 4;
    private static final int AFTER_VALUE = 5;
    private static final int DONE = 6;

    /*
     * Word-at-a-time string scanning: a byte is plain when it is none of '"', '\\', a control character (< 0x20) or
     * non-ASCII. For a word x of plain bytes, (x ^ QUOTES) - ONES, (x ^ BACKSLASHES) - ONES and x - SPACES leave every
     * byte's high bit clear and borrow nothing, and x has no high bit; the lowest byte that is not plain sets its high
     * bit in one of the four. So the word is all plain exactly when their OR has no bit of HIGHS.
     */
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long QUOTES = 0x2222222222222222L;
    private static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;
    private static final long SPACES = 0x2020202020202020L;

    private final byte[] data;
    private int offset;
    private int limit;
    private final int maxDepth;
    /** Per open container: true for an object. */
    private final boolean[] objectAt;
    /** Decoded escaped strings for {@link #stringUtf8(ByteSink)}; allocated by the first one. */
    private byte[] decoded;

    private int depth;
    private int pos;
    private int state = START;

    private Token token;
    private int tokenStart;
    private int tokenEnd;
    /** For strings and names: whether the raw bytes contain a backslash escape. */
    private boolean escaped;

    public JsonReader(byte[] data) {
        this(data, 0, data.length, DEFAULT_MAX_DEPTH);
    }

    public JsonReader(byte[] data, int offset, int length) {
        this(data, offset, length, DEFAULT_MAX_DEPTH);
    }

    public JsonReader(byte[] data, int offset, int length, int maxDepth) {
        if (offset < 0 || length < 0 || offset > data.length - length) {
            throw new IndexOutOfBoundsException("range " + offset + "+" + length + " of " + data.length);
        }
        if (maxDepth < 1) {
            throw new IllegalArgumentException("maxDepth must be positive");
        }
        this.data = data;
        this.offset = offset;
        this.limit = offset + length;
        this.maxDepth = maxDepth;
        this.objectAt = new boolean[maxDepth];
        this.pos = offset;
    }

    /** Restarts on another range of the same array, keeping the depth limit; lets hot loops reuse one reader. */
    public void reset(int newOffset, int length) {
        if (newOffset < 0 || length < 0 || newOffset > data.length - length) {
            throw new IndexOutOfBoundsException("range " + newOffset + "+" + length + " of " + data.length);
        }
        offset = newOffset;
        limit = newOffset + length;
        pos = newOffset;
        depth = 0;
        state = START;
        token = null;
        tokenStart = 0;
        tokenEnd = 0;
        escaped = false;
    }

    /** Reads the next token. */
    public Token next() {
        skipWhitespace();
        switch (state) {
            case START:
                if (pos >= limit) {
                    throw error(pos, "empty document");
                }
                return readValue();
            case AFTER_BEGIN_OBJECT:
                if (peekByte() == '}') {
                    return close(true);
                }
                return readName();
            case AFTER_BEGIN_ARRAY:
                if (peekByte() == ']') {
                    return close(false);
                }
                return readValue();
            case EXPECT_NAME:
                return readName();
            case EXPECT_VALUE:
                return readValue();
            case AFTER_VALUE:
                return afterValue();
            default:
                return setToken(Token.END_DOCUMENT, pos, pos);
        }
    }

    /** True when the current container (or the document) has another member or element before its end. */
    public boolean hasNext() {
        skipWhitespace();
        switch (state) {
            case START:
            case EXPECT_NAME:
            case EXPECT_VALUE:
                return true;
            case AFTER_BEGIN_OBJECT:
                return pos < limit && data[pos] != '}';
            case AFTER_BEGIN_ARRAY:
                return pos < limit && data[pos] != ']';
            case AFTER_VALUE:
                return depth > 0 && pos < limit && data[pos] == ',';
            default:
                return false;
        }
    }

    /**
     * Reads and discards the next complete value (after a NAME, or at an element position), including everything
     * nested in it. Iterative; builds no strings.
     */
    public void skipValue() {
        Token t = next();
        if (t == Token.BEGIN_OBJECT || t == Token.BEGIN_ARRAY) {
            int target = depth - 1;
            while (depth > target) {
                next();
            }
        } else if (t == Token.END_OBJECT || t == Token.END_ARRAY || t == Token.NAME || t == Token.END_DOCUMENT) {
            throw new IllegalStateException("no value to skip: next token is " + t);
        }
    }

    /** The last token returned by {@link #next()}, or null before the first call. */
    public Token token() {
        return token;
    }

    /** Number of open containers. */
    public int depth() {
        return depth;
    }

    /** Bytes consumed so far, relative to the start of the range. */
    public int position() {
        return pos - offset;
    }

    /** Absolute index in the array of the first byte of the last token (the quote of a string, the brace...). */
    public int tokenStart() {
        return tokenStart;
    }

    /** Absolute index in the array just after the last token. */
    public int tokenEnd() {
        return tokenEnd;
    }

    /** The decoded value of the last NAME or STRING token. */
    public String string() {
        requireString();
        int start = tokenStart + 1;
        int end = tokenEnd - 1;
        if (!escaped) {
            return Utf8.decode(data, start, end - start);
        }
        StringBuilder sb = new StringBuilder(end - start);
        int segment = start;
        int i = start;
        while (i < end) {
            if (data[i] != '\\') {
                i++;
                continue;
            }
            if (i > segment) {
                sb.append(Utf8.decode(data, segment, i - segment));
            }
            byte e = data[i + 1];
            if (e == 'u') {
                sb.append((char) hex4(i + 2));
                i += 6;
            } else {
                sb.append((char) simpleEscape(e));
                i += 2;
            }
            segment = i;
        }
        if (end > segment) {
            sb.append(Utf8.decode(data, segment, end - segment));
        }
        return sb.toString();
    }

    /**
     * Writes the decoded UTF-8 bytes of the last NAME or STRING token to {@code sink}, without allocating: unescaped
     * runs are passed straight from the input array. A lone surrogate escape becomes U+FFFD (UTF-8 cannot hold it).
     * Returns the number of code points written.
     */
    public int stringUtf8(ByteSink sink) {
        return (int) writeDecoded(sink, true);
    }

    /**
     * Like {@link #stringUtf8(ByteSink)}, but returns the number of bytes written and does not count code points (one
     * pass less over the string when the sink counts what it needs).
     */
    public long stringUtf8Bytes(ByteSink sink) {
        return writeDecoded(sink, false);
    }

    /**
     * Returns code points written if {@code countCodePoints}, else bytes written. An escaped string is decoded into
     * {@link #decoded} and reaches the sink one full buffer at a time: a sink call per plain run and per escape cost
     * more than copying the runs.
     */
    private long writeDecoded(ByteSink sink, boolean countCodePoints) {
        requireString();
        byte[] bytes = data;
        int start = tokenStart + 1;
        int end = tokenEnd - 1;
        if (!escaped) {
            sink.write(bytes, start, end - start);
            return countCodePoints ? Utf8.codePoints(bytes, start, end) : end - start;
        }
        if (decoded == null) {
            decoded = new byte[DECODE_BUFFER_BYTES];
        }
        byte[] out = decoded;
        long written = 0;
        int filled = 0;
        int lastWord = end - 8;
        int i = start;
        while (i < end) {
            int escape = i;
            while (escape <= lastWord) {
                long word = ByteAccess.readLongLE(bytes, escape) ^ BACKSLASHES;
                long backslashes = (word - ONES) & ~word & HIGHS;
                if (backslashes != 0) {
                    escape += Long.numberOfTrailingZeros(backslashes) >>> 3;
                    break;
                }
                escape += 8;
            }
            while (escape < end && bytes[escape] != '\\') {
                escape++;
            }
            while (i < escape) {
                int take = Math.min(escape - i, out.length - filled);
                ByteAccess.copy(bytes, i, out, filled, take);
                filled += take;
                i += take;
                if (filled == out.length) {
                    written += flush(sink, out, filled, countCodePoints);
                    filled = 0;
                }
            }
            if (i == end) {
                break;
            }
            if (bytes[i + 1] != 'u') {
                if (filled == out.length) {
                    written += flush(sink, out, filled, countCodePoints);
                    filled = 0;
                }
                out[filled++] = (byte) simpleEscape(bytes[i + 1]);
                i += 2;
                continue;
            }
            int cp = hex4(i + 2);
            i += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 <= end && bytes[i] == '\\' && bytes[i + 1] == 'u') {
                int low = hex4(i + 2);
                if (low >= 0xDC00 && low <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    i += 6;
                }
            }
            if (cp >= 0xD800 && cp <= 0xDFFF) {
                cp = 0xFFFD;
            }
            if (filled > out.length - 4) {
                written += flush(sink, out, filled, countCodePoints);
                filled = 0;
            }
            filled = encodeUtf8(cp, out, filled);
        }
        if (filled > 0) {
            written += flush(sink, out, filled, countCodePoints);
        }
        return written;
    }

    private static long flush(ByteSink sink, byte[] buffer, int length, boolean countCodePoints) {
        sink.write(buffer, 0, length);
        return countCodePoints ? Utf8.codePoints(buffer, 0, length) : length;
    }

    /** Compares the last NAME or STRING token with {@code expected} without building a string when unescaped. */
    public boolean stringEquals(String expected) {
        requireString();
        if (escaped) {
            return string().equals(expected);
        }
        int start = tokenStart + 1;
        int length = tokenEnd - 1 - start;
        if (length != expected.length()) {
            // Equal only if non-ASCII; decoding settles it.
            return hasNonAscii(start, length) && string().equals(expected);
        }
        for (int i = 0; i < length; i++) {
            byte b = data[start + i];
            if (b < 0) {
                return string().equals(expected);
            }
            if (b != expected.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** The lexeme of the last NUMBER token. */
    public String numberLexeme() {
        requireNumber();
        return new String(data, tokenStart, tokenEnd - tokenStart, StandardCharsets.US_ASCII);
    }

    /** The last NUMBER as a long; throws when it is not integral or out of range. */
    public long numberAsLong() {
        requireNumber();
        boolean plain = true;
        for (int i = tokenStart; i < tokenEnd; i++) {
            byte b = data[i];
            if (b == '.' || b == 'e' || b == 'E') {
                plain = false;
                break;
            }
        }
        if (!plain) {
            String lexeme = numberLexeme();
            if (!JsonNumbers.isIntegral(lexeme)) {
                throw error(tokenStart, "not an integer in the long range: " + lexeme);
            }
            return JsonNumbers.toLong(lexeme);
        }
        boolean negative = data[tokenStart] == '-';
        long value = 0;
        for (int i = negative ? tokenStart + 1 : tokenStart; i < tokenEnd; i++) {
            int digit = data[i] - '0';
            // Accumulate negatively so Long.MIN_VALUE fits.
            if (value < (Long.MIN_VALUE + digit) / 10) {
                throw error(tokenStart, "integer out of the long range");
            }
            value = value * 10 - digit;
        }
        if (!negative) {
            if (value == Long.MIN_VALUE) {
                throw error(tokenStart, "integer out of the long range");
            }
            return -value;
        }
        return value;
    }

    /** The last NUMBER as the nearest double (may be infinite for huge exponents). */
    public double numberAsDouble() {
        return Double.parseDouble(numberLexeme());
    }

    private Token readValue() {
        if (pos >= limit) {
            throw error(pos, "unexpected end of input, expected a value");
        }
        int start = pos;
        byte b = data[pos];
        switch (b) {
            case '{':
                open(true);
                pos++;
                state = AFTER_BEGIN_OBJECT;
                return setToken(Token.BEGIN_OBJECT, start, pos);
            case '[':
                open(false);
                pos++;
                state = AFTER_BEGIN_ARRAY;
                return setToken(Token.BEGIN_ARRAY, start, pos);
            case '"':
                scanString();
                state = AFTER_VALUE;
                return setToken(Token.STRING, start, pos);
            case 't':
                literal("true");
                return setToken(Token.TRUE, start, pos);
            case 'f':
                literal("false");
                return setToken(Token.FALSE, start, pos);
            case 'n':
                literal("null");
                return setToken(Token.NULL, start, pos);
            default:
                if (b == '-' || (b >= '0' && b <= '9')) {
                    scanNumber();
                    state = AFTER_VALUE;
                    return setToken(Token.NUMBER, start, pos);
                }
                throw unexpected(pos, "a value");
        }
    }

    private Token readName() {
        if (pos >= limit) {
            throw error(pos, "unexpected end of input, expected a member name");
        }
        if (data[pos] != '"') {
            throw unexpected(pos, "a member name");
        }
        int start = pos;
        scanString();
        int end = pos;
        skipWhitespace();
        if (pos >= limit || data[pos] != ':') {
            throw unexpected(pos, "':'");
        }
        pos++;
        state = EXPECT_VALUE;
        return setToken(Token.NAME, start, end);
    }

    private Token afterValue() {
        if (depth == 0) {
            if (pos < limit) {
                throw unexpected(pos, "the end of the document");
            }
            state = DONE;
            return setToken(Token.END_DOCUMENT, pos, pos);
        }
        if (pos >= limit) {
            throw error(pos, "unexpected end of input inside " + (objectAt[depth - 1] ? "an object" : "an array"));
        }
        byte b = data[pos];
        boolean inObject = objectAt[depth - 1];
        if (b == ',') {
            pos++;
            state = inObject ? EXPECT_NAME : EXPECT_VALUE;
            skipWhitespace();
            return inObject ? readName() : readValue();
        }
        if (b == (inObject ? '}' : ']')) {
            return close(inObject);
        }
        throw unexpected(pos, inObject ? "',' or '}'" : "',' or ']'");
    }

    private Token close(boolean object) {
        int start = pos;
        pos++;
        depth--;
        state = AFTER_VALUE;
        return setToken(object ? Token.END_OBJECT : Token.END_ARRAY, start, pos);
    }

    private void open(boolean object) {
        if (depth == maxDepth) {
            throw error(pos, "nesting deeper than " + maxDepth);
        }
        objectAt[depth++] = object;
    }

    /** Literals are strings, not static byte arrays: a static initialiser would cost every static call a check. */
    private void literal(String expected) {
        int length = expected.length();
        if (limit - pos < length) {
            throw error(pos, "invalid literal");
        }
        for (int i = 0; i < length; i++) {
            if (data[pos + i] != expected.charAt(i)) {
                throw error(pos, "invalid literal");
            }
        }
        pos += length;
        state = AFTER_VALUE;
    }

    /** Scans a string starting at the opening quote; validates escapes and UTF-8; leaves pos after the closing quote. */
    private void scanString() {
        byte[] bytes = data;
        int lastWord = limit - 8;
        int i = pos + 1;
        boolean hasEscape = false;
        while (true) {
            // Eight plain bytes per step; the code below handles the byte that stops it.
            while (i <= lastWord) {
                long word = ByteAccess.readLongLE(bytes, i);
                long stops =
                        (((word ^ QUOTES) - ONES) | ((word ^ BACKSLASHES) - ONES) | (word - SPACES) | word) & HIGHS;
                if (stops != 0) {
                    i += Long.numberOfTrailingZeros(stops) >>> 3;
                    break;
                }
                i += 8;
            }
            if (i >= limit) {
                throw error(pos, "unterminated string");
            }
            int b = bytes[i];
            if (b == '"') {
                break;
            }
            if (b == '\\') {
                hasEscape = true;
                i = checkEscape(i);
            } else if (b >= 0 && b < 0x20) {
                throw error(i, "unescaped control character in string");
            } else if (b < 0) {
                i = checkUtf8(i);
            } else {
                i++;
            }
        }
        escaped = hasEscape;
        pos = i + 1;
    }

    private int checkEscape(int i) {
        if (i + 1 >= limit) {
            throw error(pos, "unterminated string");
        }
        byte e = data[i + 1];
        if (e == 'u') {
            if (i + 6 > limit) {
                throw error(i, "truncated \\u escape");
            }
            for (int k = i + 2; k < i + 6; k++) {
                if (hexDigit(data[k]) < 0) {
                    throw error(i, "invalid \\u escape");
                }
            }
            return i + 6;
        }
        if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
            return i + 2;
        }
        throw error(i, "invalid escape");
    }

    /**
     * Validates the multi-byte UTF-8 sequences from {@code i} up to the next ASCII byte (no overlongs, no surrogates,
     * at most U+10FFFF) and returns its index. A run at a time: text in a non-Latin script is mostly such runs.
     */
    private int checkUtf8(int i) {
        byte[] bytes = data;
        while (i < limit && bytes[i] < 0) {
            int lead = bytes[i] & 0xFF;
            int count;
            int min = 0x80;
            int max = 0xBF;
            if (lead >= 0xC2 && lead <= 0xDF) {
                count = 1;
            } else if (lead >= 0xE0 && lead <= 0xEF) {
                count = 2;
                if (lead == 0xE0) {
                    min = 0xA0;
                } else if (lead == 0xED) {
                    max = 0x9F;
                }
            } else if (lead >= 0xF0 && lead <= 0xF4) {
                count = 3;
                if (lead == 0xF0) {
                    min = 0x90;
                } else if (lead == 0xF4) {
                    max = 0x8F;
                }
            } else {
                throw error(i, "invalid UTF-8");
            }
            if (i + count >= limit) {
                throw error(i, "invalid UTF-8");
            }
            int second = bytes[i + 1] & 0xFF;
            if (second < min || second > max) {
                throw error(i, "invalid UTF-8");
            }
            for (int k = 2; k <= count; k++) {
                int c = bytes[i + k] & 0xFF;
                if (c < 0x80 || c > 0xBF) {
                    throw error(i, "invalid UTF-8");
                }
            }
            i += count + 1;
        }
        return i;
    }

    private void scanNumber() {
        int i = pos;
        if (data[i] == '-') {
            i++;
        }
        if (i >= limit) {
            throw error(pos, "invalid number");
        }
        if (data[i] == '0') {
            i++;
        } else if (data[i] >= '1' && data[i] <= '9') {
            i = digits(i);
        } else {
            throw error(pos, "invalid number");
        }
        if (i < limit && data[i] == '.') {
            int start = i + 1;
            i = digits(start);
            if (i == start) {
                throw error(pos, "invalid number");
            }
        }
        if (i < limit && (data[i] == 'e' || data[i] == 'E')) {
            i++;
            if (i < limit && (data[i] == '+' || data[i] == '-')) {
                i++;
            }
            int start = i;
            i = digits(start);
            if (i == start) {
                throw error(pos, "invalid number");
            }
        }
        // A number must end at a delimiter: "01" or "1x" are errors here, not at the next token.
        if (i < limit && isNumberContinuation(data[i])) {
            throw error(pos, "invalid number");
        }
        pos = i;
    }

    private static boolean isNumberContinuation(byte b) {
        return (b >= '0' && b <= '9') || b == '.' || b == 'e' || b == 'E' || b == '+' || b == '-';
    }

    private int digits(int i) {
        while (i < limit && data[i] >= '0' && data[i] <= '9') {
            i++;
        }
        return i;
    }

    private void skipWhitespace() {
        while (pos < limit) {
            byte b = data[pos];
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                return;
            }
            pos++;
        }
    }

    private int peekByte() {
        return pos < limit ? data[pos] : -1;
    }

    private Token setToken(Token t, int start, int end) {
        token = t;
        tokenStart = start;
        tokenEnd = end;
        return t;
    }

    private void requireString() {
        if (token != Token.STRING && token != Token.NAME) {
            throw new IllegalStateException("current token is " + token + ", not a string");
        }
    }

    private void requireNumber() {
        if (token != Token.NUMBER) {
            throw new IllegalStateException("current token is " + token + ", not a number");
        }
    }

    private boolean hasNonAscii(int start, int length) {
        for (int i = start; i < start + length; i++) {
            if (data[i] < 0) {
                return true;
            }
        }
        return false;
    }

    private int hex4(int i) {
        return (hexDigit(data[i]) << 12)
                | (hexDigit(data[i + 1]) << 8)
                | (hexDigit(data[i + 2]) << 4)
                | hexDigit(data[i + 3]);
    }

    private static int hexDigit(byte b) {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        if (b >= 'a' && b <= 'f') {
            return b - 'a' + 10;
        }
        if (b >= 'A' && b <= 'F') {
            return b - 'A' + 10;
        }
        return -1;
    }

    private static int simpleEscape(byte e) {
        switch (e) {
            case 'b':
                return '\b';
            case 'f':
                return '\f';
            case 'n':
                return '\n';
            case 'r':
                return '\r';
            case 't':
                return '\t';
            default:
                return e; // '"', '\\' and '/' stand for themselves
        }
    }

    /** Writes {@code cp} as UTF-8 at {@code out[at]}; returns the index after it. */
    private static int encodeUtf8(int cp, byte[] out, int at) {
        if (cp < 0x80) {
            out[at] = (byte) cp;
            return at + 1;
        }
        if (cp < 0x800) {
            out[at] = (byte) (0xC0 | (cp >> 6));
            out[at + 1] = (byte) (0x80 | (cp & 0x3F));
            return at + 2;
        }
        if (cp < 0x10000) {
            out[at] = (byte) (0xE0 | (cp >> 12));
            out[at + 1] = (byte) (0x80 | ((cp >> 6) & 0x3F));
            out[at + 2] = (byte) (0x80 | (cp & 0x3F));
            return at + 3;
        }
        out[at] = (byte) (0xF0 | (cp >> 18));
        out[at + 1] = (byte) (0x80 | ((cp >> 12) & 0x3F));
        out[at + 2] = (byte) (0x80 | ((cp >> 6) & 0x3F));
        out[at + 3] = (byte) (0x80 | (cp & 0x3F));
        return at + 4;
    }

    private JsonException unexpected(int at, String expected) {
        if (at >= limit) {
            return error(at, "unexpected end of input, expected " + expected);
        }
        int b = data[at] & 0xFF;
        String seen = b >= 0x20 && b < 0x7F ? "'" + (char) b + "'" : "byte 0x" + Integer.toHexString(b);
        return error(at, "unexpected " + seen + ", expected " + expected);
    }

    private JsonException error(int absolute, String reason) {
        return new JsonException(absolute - offset, reason);
    }
}
