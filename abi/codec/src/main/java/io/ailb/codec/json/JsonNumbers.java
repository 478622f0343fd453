package io.ailb.codec.json;

/** Number lexeme helpers shared by the reader, the tree and config readers. */
public final class JsonNumbers {
    /** Beyond 2^53 a double no longer holds every integer, so fraction/exponent forms stop being exact there. */
    private static final double EXACT_DOUBLE_LIMIT = 9007199254740992.0;

    private JsonNumbers() {}

    /** True when {@code s} is exactly an RFC 8259 number: {@code -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?}. */
    public static boolean isValidLexeme(String s) {
        return s != null && s.length() > 0 && scan(s) == s.length();
    }

    /**
     * True when the lexeme is a valid number with an integral value that fits a long. Plain integers are exact up to
     * the long range; forms with a fraction or exponent ({@code 2.0}, {@code 1e3}) are accepted up to 2^53.
     */
    public static boolean isIntegral(String lexeme) {
        if (!isValidLexeme(lexeme)) {
            return false;
        }
        if (isPlainInteger(lexeme)) {
            return fitsLong(lexeme);
        }
        double d = Double.parseDouble(lexeme);
        return d == Math.floor(d) && Math.abs(d) <= EXACT_DOUBLE_LIMIT;
    }

    /** The value of a lexeme for which {@link #isIntegral(String)} is true. */
    public static long toLong(String lexeme) {
        if (isPlainInteger(lexeme)) {
            return Long.parseLong(lexeme);
        }
        return (long) Double.parseDouble(lexeme);
    }

    private static boolean isPlainInteger(String lexeme) {
        for (int i = 0; i < lexeme.length(); i++) {
            char c = lexeme.charAt(i);
            if (c == '.' || c == 'e' || c == 'E') {
                return false;
            }
        }
        return true;
    }

    private static boolean fitsLong(String digits) {
        boolean negative = digits.charAt(0) == '-';
        String magnitude = negative ? digits.substring(1) : digits;
        String limit = negative ? "9223372036854775808" : "9223372036854775807";
        if (magnitude.length() != limit.length()) {
            return magnitude.length() < limit.length();
        }
        return magnitude.compareTo(limit) <= 0;
    }

    /** Length of the longest valid number prefix, or -1 when the start is not a number. */
    private static int scan(String s) {
        int i = 0;
        int n = s.length();
        if (i < n && s.charAt(i) == '-') {
            i++;
        }
        if (i >= n) {
            return -1;
        }
        if (s.charAt(i) == '0') {
            i++;
        } else if (isDigit(s.charAt(i))) {
            while (i < n && isDigit(s.charAt(i))) {
                i++;
            }
        } else {
            return -1;
        }
        if (i < n && s.charAt(i) == '.') {
            i++;
            int start = i;
            while (i < n && isDigit(s.charAt(i))) {
                i++;
            }
            if (i == start) {
                return -1;
            }
        }
        if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
            i++;
            if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
                i++;
            }
            int start = i;
            while (i < n && isDigit(s.charAt(i))) {
                i++;
            }
            if (i == start) {
                return -1;
            }
        }
        return i;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
