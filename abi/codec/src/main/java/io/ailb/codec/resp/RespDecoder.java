package io.ailb.codec.resp;

import java.util.ArrayList;
import java.util.List;

/**
 * Decodes one RESP2 reply. RESP3 types that map cheaply are accepted: null {@code _}, boolean {@code #} (INTEGER 1/0),
 * double {@code ,} and big number {@code (} (BULK_STRING of their text), blob error {@code !} (ERROR), verbatim string
 * {@code =} (BULK_STRING without its {@code txt:} prefix), set {@code ~} and push {@code >} (ARRAY) and map {@code %}
 * (ARRAY of alternating keys and values). Attributes {@code |} and unknown types are rejected.
 *
 * <p>Non-recursive (explicit stack) and bounded: nesting depth, elements per aggregate and the length of a bulk string
 * or line are limited, so hostile input can neither overflow the stack nor make the decoder allocate more than the
 * bytes it was given. Stateless and thread-safe; a host reading a socket calls {@link #decode} again on the whole
 * buffered reply once more bytes have arrived.
 */
public final class RespDecoder {

    public static final int DEFAULT_MAX_DEPTH = 32;
    public static final int DEFAULT_MAX_ELEMENTS = 1 << 20;
    public static final int DEFAULT_MAX_BULK_LENGTH = 64 << 20;

    /** Decoder with the default limits. */
    public static final RespDecoder DEFAULT =
            new RespDecoder(DEFAULT_MAX_DEPTH, DEFAULT_MAX_ELEMENTS, DEFAULT_MAX_BULK_LENGTH);

    /** '-' and 19 digits: the longest valid integer or length line. */
    private static final int MAX_NUMBER_LINE = 20;

    private final int maxDepth;
    private final int maxElements;
    private final int maxBulkLength;

    /**
     * @param maxDepth      most aggregates open at once (1 allows a flat array)
     * @param maxElements   most elements in one aggregate (a map counts keys and values)
     * @param maxBulkLength most bytes in one bulk string, and in one simple string or error line
     */
    public RespDecoder(int maxDepth, int maxElements, int maxBulkLength) {
        if (maxDepth < 0 || maxElements < 0 || maxBulkLength < 0) {
            throw new IllegalArgumentException("limits must not be negative");
        }
        this.maxDepth = maxDepth;
        this.maxElements = maxElements;
        this.maxBulkLength = maxBulkLength;
    }

    /** Outcome of {@link #decode}: a value and the bytes it took, or "incomplete, feed more bytes". */
    public static final class Result {
        private static final Result INCOMPLETE = new Result(null, 0);

        private final RespValue value;
        private final int consumed;

        private Result(RespValue value, int consumed) {
            this.value = value;
            this.consumed = consumed;
        }

        public boolean isComplete() {
            return value != null;
        }

        /** @throws IllegalStateException if incomplete */
        public RespValue value() {
            if (value == null) {
                throw new IllegalStateException("incomplete RESP reply");
            }
            return value;
        }

        /** Bytes of the buffer the reply occupied; 0 if incomplete. */
        public int consumed() {
            return consumed;
        }

        @Override
        public String toString() {
            return value == null ? "Incomplete" : "Complete(" + consumed + " bytes, " + value + ")";
        }
    }

    /**
     * Decodes the reply starting at {@code offset}; bytes after it are left alone (see {@link Result#consumed()}).
     *
     * @return a complete result, or an incomplete one if {@code length} bytes end before the reply does
     * @throws RespException if the bytes cannot be the start of a valid reply, or exceed a limit
     */
    public Result decode(byte[] buf, int offset, int length) {
        if (offset < 0 || length < 0 || offset > buf.length - length) {
            throw new IndexOutOfBoundsException("offset " + offset + ", length " + length + ", buffer " + buf.length);
        }
        return new Cursor(buf, offset, offset + length).run();
    }

    /**
     * Decodes a buffer that must hold exactly one complete reply, such as the proxy-wasm Redis call response.
     *
     * @throws RespException if the reply is malformed, truncated or followed by other bytes
     */
    public RespValue decodeExactly(byte[] buf, int offset, int length) {
        Result result = decode(buf, offset, length);
        if (!result.isComplete()) {
            throw new RespException(offset + length, "truncated reply");
        }
        if (result.consumed() != length) {
            throw new RespException(offset + result.consumed(), "unexpected bytes after the reply");
        }
        return result.value();
    }

    /** One decoding pass; holds the position and the stack of open aggregates. */
    private final class Cursor {
        private final byte[] buf;
        private final int start;
        private final int end;
        private int pos;
        /** Set by {@link #lineEnd} when the line terminator has not arrived yet. */
        private boolean incomplete;

        private final List<List<RespValue>> openLists = new ArrayList<>();
        private final List<int[]> openRemaining = new ArrayList<>();

        Cursor(byte[] buf, int start, int end) {
            this.buf = buf;
            this.start = start;
            this.end = end;
            this.pos = start;
        }

        Result run() {
            while (true) {
                RespValue value = next();
                if (incomplete) {
                    return Result.INCOMPLETE;
                }
                // value is null when an aggregate was opened; its elements come next.
                while (value != null) {
                    int depth = openLists.size();
                    if (depth == 0) {
                        return new Result(value, pos - start);
                    }
                    List<RespValue> top = openLists.get(depth - 1);
                    top.add(value);
                    int[] remaining = openRemaining.get(depth - 1);
                    if (--remaining[0] > 0) {
                        value = null;
                    } else {
                        openLists.remove(depth - 1);
                        openRemaining.remove(depth - 1);
                        value = RespValue.ownedArray(top);
                    }
                }
            }
        }

        /** Reads one item: a scalar, an empty/null aggregate, or (returning null) the header of an aggregate. */
        private RespValue next() {
            if (pos >= end) {
                incomplete = true;
                return null;
            }
            int typeAt = pos;
            byte type = buf[pos++];
            switch (type) {
                case '+':
                    return line(RespValue.Kind.SIMPLE_STRING);
                case '-':
                    return line(RespValue.Kind.ERROR);
                case ':':
                    return integer();
                case '$':
                    return blob(RespValue.Kind.BULK_STRING, false);
                case '*':
                case '~':
                case '>':
                    return aggregate(1);
                case '%':
                    return aggregate(2);
                case '_':
                    return nullLine();
                case '#':
                    return bool();
                case ',':
                case '(':
                    return line(RespValue.Kind.BULK_STRING);
                case '!':
                    return blob(RespValue.Kind.ERROR, false);
                case '=':
                    return blob(RespValue.Kind.BULK_STRING, true);
                default:
                    throw new RespException(typeAt, "unsupported type byte 0x" + Integer.toHexString(type & 0xFF));
            }
        }

        private RespValue line(RespValue.Kind kind) {
            int lineStart = pos;
            int cr = lineEnd(maxBulkLength);
            if (cr < 0) {
                return null;
            }
            byte[] text = new byte[cr - lineStart];
            System.arraycopy(buf, lineStart, text, 0, text.length);
            return RespValue.ofOwnedBytes(kind, text);
        }

        private RespValue integer() {
            long value = number();
            return incomplete ? null : RespValue.integer(value);
        }

        private RespValue nullLine() {
            int cr = lineEnd(0);
            return cr < 0 ? null : RespValue.NULL;
        }

        private RespValue bool() {
            int at = pos;
            int cr = lineEnd(1);
            if (cr < 0) {
                return null;
            }
            if (cr == at + 1 && (buf[at] == 't' || buf[at] == 'f')) {
                return RespValue.integer(buf[at] == 't' ? 1 : 0);
            }
            throw new RespException(at, "boolean must be 't' or 'f'");
        }

        private RespValue blob(RespValue.Kind kind, boolean verbatim) {
            int lengthAt = pos;
            long length = number();
            if (incomplete) {
                return null;
            }
            if (length == -1 && kind == RespValue.Kind.BULK_STRING && !verbatim) {
                return RespValue.NULL;
            }
            if (length < 0) {
                throw new RespException(lengthAt, "negative length " + length);
            }
            if (length > maxBulkLength) {
                throw new RespException(lengthAt, "length " + length + " exceeds the limit " + maxBulkLength);
            }
            int size = (int) length;
            if (end - pos < size + 2L) {
                incomplete = true;
                return null;
            }
            if (buf[pos + size] != '\r' || buf[pos + size + 1] != '\n') {
                throw new RespException(pos + size, "string not followed by CRLF");
            }
            int from = pos;
            if (verbatim) {
                // "txt:" or "mkd:" tells the client how to display the text; callers want the text only.
                if (size < 4 || buf[from + 3] != ':') {
                    throw new RespException(from, "verbatim string without a format prefix");
                }
                from += 4;
            }
            byte[] data = new byte[pos + size - from];
            System.arraycopy(buf, from, data, 0, data.length);
            pos += size + 2;
            return RespValue.ofOwnedBytes(kind, data);
        }

        private RespValue aggregate(int itemsPerEntry) {
            int countAt = pos;
            long count = number();
            if (incomplete) {
                return null;
            }
            if (count == -1) {
                return RespValue.NULL;
            }
            if (count < 0) {
                throw new RespException(countAt, "negative count " + count);
            }
            long items = count * itemsPerEntry;
            if (items > maxElements) {
                throw new RespException(countAt, "count " + count + " exceeds the limit " + maxElements);
            }
            if (items == 0) {
                return RespValue.ownedArray(new ArrayList<>(0));
            }
            if (openLists.size() >= maxDepth) {
                throw new RespException(countAt, "nesting deeper than " + maxDepth);
            }
            // Capacity grows with the bytes actually present, never with the declared count alone.
            openLists.add(new ArrayList<>((int) Math.min(items, 16)));
            openRemaining.add(new int[] {(int) items});
            return null;
        }

        /** Reads a decimal line; sets {@link #incomplete} (and returns 0) if the line has not fully arrived. */
        private long number() {
            int digitsAt = pos;
            int cr = lineEnd(MAX_NUMBER_LINE);
            if (cr < 0) {
                return 0;
            }
            Long value = Decimal.parse(buf, digitsAt, cr);
            if (value == null) {
                throw new RespException(digitsAt, "not a 64-bit decimal integer");
            }
            return value;
        }

        /**
         * Finds the CRLF ending the line at {@link #pos} and moves past it.
         *
         * @return index of the CR, or -1 with {@link #incomplete} set when the line is not complete yet
         * @throws RespException on a bare CR or LF, or a line longer than {@code maxLength}
         */
        private int lineEnd(int maxLength) {
            int limit = (int) Math.min(end, (long) pos + maxLength + 1);
            for (int i = pos; i < limit; i++) {
                byte b = buf[i];
                if (b == '\n') {
                    throw new RespException(i, "line feed without carriage return");
                }
                if (b == '\r') {
                    if (i + 1 == end) {
                        incomplete = true;
                        return -1;
                    }
                    if (buf[i + 1] != '\n') {
                        throw new RespException(i + 1, "carriage return not followed by line feed");
                    }
                    pos = i + 2;
                    return i;
                }
            }
            if (limit < end || end - pos > maxLength) {
                throw new RespException(pos, "line longer than " + maxLength + " bytes");
            }
            incomplete = true;
            return -1;
        }
    }
}
