package io.ailb.lb.util;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class DecimalTest {
    @Test
    void digitsReadAsANumberAndAnythingElseAsMinusOne() {
        assertEquals(0, Decimal.nonNegative("0", 5));
        assertEquals(65535, Decimal.nonNegative("65535", 5));
        assertEquals(-1, Decimal.nonNegative("655350", 5), "more digits than allowed");
        assertEquals(-1, Decimal.nonNegative("-1", 5));
        assertEquals(-1, Decimal.nonNegative("1e3", 5));
        assertEquals(-1, Decimal.nonNegative(" 12", 5));
        assertEquals(-1, Decimal.nonNegative("", 5));
        assertEquals(-1, Decimal.nonNegative(null, 5));
        assertEquals(999_999_999_999_999_999L, Decimal.nonNegative("999999999999999999", 18));
    }
}
