package io.ailb.codec.resp;

import io.ailb.codec.util.Utf8;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/** Encodes Redis commands (arrays of bulk strings) and arbitrary replies into exactly-sized byte arrays. */
public final class RespEncoder {
    private RespEncoder() {}

    /** {@code *N\r\n} then {@code $len\r\narg\r\n} per argument, each argument as UTF-8. */
    public static byte[] command(String... args) {
        List<byte[]> encoded = new ArrayList<>(args.length);
        for (String arg : args) {
            encoded.add(Utf8.encode(arg));
        }
        return command(encoded);
    }

    /** {@code *N\r\n} then {@code $len\r\narg\r\n} per argument; the arguments are copied as they are. */
    public static byte[] command(List<byte[]> args) {
        int size = headerSize(args.size());
        for (byte[] arg : args) {
            size = Math.addExact(size, Math.addExact(headerSize(arg.length), arg.length + 2));
        }
        byte[] out = new byte[size];
        int pos = header(out, 0, '*', args.size());
        for (byte[] arg : args) {
            pos = header(out, pos, '$', arg.length);
            pos = bytesLine(out, pos, arg);
        }
        return out;
    }

    /**
     * Encodes a reply as a server would send it (RESP2): NULL becomes the null bulk string {@code $-1}.
     *
     * @throws IllegalArgumentException if a simple string or error contains CR or LF
     */
    public static byte[] encode(RespValue value) {
        int size = 0;
        ArrayDeque<RespValue> pending = new ArrayDeque<>();
        pending.push(value);
        while (!pending.isEmpty()) {
            RespValue next = pending.pop();
            size = Math.addExact(size, encodedSizeOfNode(next));
            pushChildren(pending, next);
        }
        byte[] out = new byte[size];
        int pos = 0;
        pending.push(value);
        while (!pending.isEmpty()) {
            RespValue next = pending.pop();
            pos = writeNode(out, pos, next);
            pushChildren(pending, next);
        }
        return out;
    }

    /** Pushes the elements of an array so that they pop in order (pre-order walk). */
    private static void pushChildren(ArrayDeque<RespValue> pending, RespValue value) {
        if (value.kind() == RespValue.Kind.ARRAY) {
            List<RespValue> elements = value.elements();
            for (int i = elements.size() - 1; i >= 0; i--) {
                pending.push(elements.get(i));
            }
        }
    }

    /** Bytes of one node, excluding its elements. */
    private static int encodedSizeOfNode(RespValue value) {
        switch (value.kind()) {
            case SIMPLE_STRING:
            case ERROR:
                return 1 + checkedLine(value).length + 2;
            case INTEGER:
                return 1 + decimalLength(value.asLong()) + 2;
            case BULK_STRING:
                int length = value.rawBytes().length;
                return headerSize(length) + length + 2;
            case ARRAY:
                return headerSize(value.elements().size());
            default:
                return 5; // $-1\r\n
        }
    }

    private static int writeNode(byte[] out, int pos, RespValue value) {
        switch (value.kind()) {
            case SIMPLE_STRING:
                out[pos] = '+';
                return bytesLine(out, pos + 1, value.rawBytes());
            case ERROR:
                out[pos] = '-';
                return bytesLine(out, pos + 1, value.rawBytes());
            case INTEGER:
                return header(out, pos, ':', value.asLong());
            case BULK_STRING:
                byte[] data = value.rawBytes();
                return bytesLine(out, header(out, pos, '$', data.length), data);
            case ARRAY:
                return header(out, pos, '*', value.elements().size());
            default:
                return header(out, pos, '$', -1);
        }
    }

    private static byte[] checkedLine(RespValue value) {
        byte[] text = value.rawBytes();
        for (byte b : text) {
            if (b == '\r' || b == '\n') {
                throw new IllegalArgumentException("CR/LF cannot be encoded in a " + value.kind() + ": " + value);
            }
        }
        return text;
    }

    private static int headerSize(long number) {
        return 1 + decimalLength(number) + 2;
    }

    /** Writes {@code type}, the decimal number and CRLF. */
    private static int header(byte[] out, int pos, char type, long number) {
        out[pos++] = (byte) type;
        int length = decimalLength(number);
        int digitEnd = pos + length;
        // Digits from the right, working on the negative value so Long.MIN_VALUE needs no special case.
        long rest = number < 0 ? number : -number;
        int i = digitEnd;
        do {
            out[--i] = (byte) ('0' - (int) (rest % 10));
            rest /= 10;
        } while (rest != 0);
        if (number < 0) {
            out[pos] = '-';
        }
        out[digitEnd] = '\r';
        out[digitEnd + 1] = '\n';
        return digitEnd + 2;
    }

    private static int bytesLine(byte[] out, int pos, byte[] data) {
        System.arraycopy(data, 0, out, pos, data.length);
        pos += data.length;
        out[pos] = '\r';
        out[pos + 1] = '\n';
        return pos + 2;
    }

    private static int decimalLength(long number) {
        int length = number < 0 ? 2 : 1;
        long rest = number < 0 ? number : -number;
        while (rest <= -10) {
            rest /= 10;
            length++;
        }
        return length;
    }
}
