package io.ailb.codec.util;

import java.nio.charset.StandardCharsets;

/**
 * UTF-8 bytes to a String, fast for ASCII. Under TeaVM {@code new String(bytes, UTF_8)} always runs the classlib's
 * buffered charset decoder, several times slower than copying chars; most of what a gateway plugin decodes (addresses,
 * header values, JSON keys, host info) is ASCII. Anything else takes the JDK path, so results are identical.
 */
public final class Utf8 {
    private Utf8() {
    }

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
}
