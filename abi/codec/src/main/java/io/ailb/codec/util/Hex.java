package io.ailb.codec.util;

/** Lower-case hexadecimal encoding of bytes. */
public final class Hex {
    private static final char[] DIGITS = "0123456789abcdef".toCharArray();

    private Hex() {}

    public static String encode(byte[] data) {
        char[] out = new char[data.length * 2];
        for (int i = 0; i < data.length; i++) {
            out[2 * i] = DIGITS[(data[i] >> 4) & 0xF];
            out[2 * i + 1] = DIGITS[data[i] & 0xF];
        }
        return new String(out);
    }

    /**
     * Accepts upper- and lower-case digits.
     *
     * @throws IllegalArgumentException on an odd length or a character that is not a hex digit
     */
    public static byte[] decode(CharSequence hex) {
        if (hex.length() % 2 != 0) {
            throw new IllegalArgumentException("odd number of hex digits: " + hex.length());
        }
        byte[] out = new byte[hex.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) ((digit(hex, 2 * i) << 4) | digit(hex, 2 * i + 1));
        }
        return out;
    }

    private static int digit(CharSequence hex, int index) {
        char c = hex.charAt(index);
        int value = digit(c);
        if (value < 0) {
            throw new IllegalArgumentException("not a hex digit at index " + index + ": '" + c + "'");
        }
        return value;
    }

    /** The value of hex digit {@code c} (either case), -1 when it is none; Character.digit would bring Unicode's tables. */
    public static int digit(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }
}
