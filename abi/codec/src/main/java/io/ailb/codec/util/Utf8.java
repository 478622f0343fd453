package io.ailb.codec.util;

import java.nio.charset.StandardCharsets;

/**
 * UTF-8 between bytes and Strings, fast for ASCII. Under TeaVM {@code new String(bytes, UTF_8)} and
 * {@code getBytes(UTF_8)} always run the classlib's buffered charset coders, several times slower than copying; most
 * of what a gateway plugin converts (addresses, header values, JSON keys, host info, Redis commands) is ASCII.
 * Anything else takes the JDK path, so results are identical.
 */
public final class Utf8 {
    private Utf8() {}

    public static String decode(byte[] data) {
        return decode(data, 0, data.length);
    }

    public static String decode(byte[] data, int offset, int length) {
        char[] chars = new char[length];
        for (int i = 0; i < length; i++) {
            byte b = data[offset + i];
            if (b < 0) {
                return new String(data, offset, length, StandardCharsets.UTF_8);
            }
            chars[i] = (char) b;
        }
        return new String(chars);
    }

    public static byte[] encode(String text) {
        int length = text.length();
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (c >= 0x80) {
                return text.getBytes(StandardCharsets.UTF_8);
            }
            bytes[i] = (byte) c;
        }
        return bytes;
    }

    /**
     * The number of code points in valid UTF-8 {@code bytes[from, to)}: every byte that is not a continuation byte
     * (10xxxxxx) starts one. Counts eight bytes per step ({@link ByteAccess#readLongLE}).
     */
    public static int codePoints(byte[] bytes, int from, int to) {
        if (from < 0 || from > to || to > bytes.length) {
            throw new IndexOutOfBoundsException("range " + from + ".." + to + " of " + bytes.length);
        }
        int continuation = 0;
        int i = from;
        for (int lastWord = to - 8; i <= lastWord; i += 8) {
            long word = ByteAccess.readLongLE(bytes, i);
            // Bit 7 of each byte whose top bits are 10 (TeaVM compiles bitCount to i64.popcnt).
            continuation += Long.bitCount(word & ~(word << 1) & 0x8080808080808080L);
        }
        for (; i < to; i++) {
            if ((bytes[i] & 0xC0) == 0x80) {
                continuation++;
            }
        }
        return to - from - continuation;
    }
}
