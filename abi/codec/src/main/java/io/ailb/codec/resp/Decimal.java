package io.ailb.codec.resp;

/** Parses ASCII decimal longs straight from bytes (no intermediate String). */
final class Decimal {
    private Decimal() {}

    /** An optional '-' and one or more digits in {@code [from, to)}; {@code null} if malformed or out of range. */
    static Long parse(byte[] data, int from, int to) {
        int i = from;
        boolean negative = i < to && data[i] == '-';
        if (negative) {
            i++;
        }
        if (i == to) {
            return null;
        }
        // Accumulate negatively: Long.MIN_VALUE has no positive counterpart.
        long result = 0;
        for (; i < to; i++) {
            int digit = data[i] - '0';
            if (digit < 0 || digit > 9 || result < (Long.MIN_VALUE + digit) / 10) {
                return null;
            }
            result = result * 10 - digit;
        }
        if (!negative) {
            if (result == Long.MIN_VALUE) {
                return null;
            }
            result = -result;
        }
        return result;
    }
}
