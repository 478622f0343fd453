package io.ailb.codec.util;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

final class HexTest {

    @Test
    void encodesEveryByteValueInLowerCase() {
        byte[] all = new byte[256];
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < 256; i++) {
            all[i] = (byte) i;
            expected.append(i < 16 ? "0" : "").append(Integer.toHexString(i));
        }
        assertEquals(expected.toString(), Hex.encode(all));
        assertArrayEquals(all, Hex.decode(expected));
    }

    @Test
    void decodesUpperCase() {
        assertArrayEquals(new byte[] {(byte) 0xAB, 0x0F}, Hex.decode("AB0F"));
    }

    @Test
    void emptyRoundTrips() {
        assertEquals("", Hex.encode(new byte[0]));
        assertArrayEquals(new byte[0], Hex.decode(""));
    }

    @Test
    void rejectsOddLengthAndNonHexCharacters() {
        assertThrows(IllegalArgumentException.class, () -> Hex.decode("abc"));
        assertThrows(IllegalArgumentException.class, () -> Hex.decode("0g"));
        assertThrows(IllegalArgumentException.class, () -> Hex.decode("+1"));
    }
}
