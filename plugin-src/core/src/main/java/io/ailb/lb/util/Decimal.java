package io.ailb.lb.util;

/** Reading plain decimal numbers from headers and attributes without exceptions on the request path. */
public final class Decimal {
    private Decimal() {}

    /** {@code text} as a non-negative number of at most {@code maxDigits} digits; -1 for anything else (or null). */
    public static long nonNegative(String text, int maxDigits) {
        if (text == null || text.isEmpty() || text.length() > maxDigits) {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
