package io.ailb.codec.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LittleEndianTest {
    @Test
    void readsTheSameLongAsALittleEndianByteBuffer() {
        SplittableRandom random = new SplittableRandom(5);
        byte[] bytes = new byte[64];
        for (int n = 0; n < 200; n++) {
            random.nextBytes(bytes);
            ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            for (int index = 0; index <= bytes.length - 8; index++) {
                assertEquals(buffer.getLong(index), LittleEndian.readLong(bytes, index), "index " + index);
            }
        }
    }

    @Test
    void theFirstByteIsTheLeastSignificant() {
        byte[] bytes = {1, 2, 3, 4, 5, 6, 7, (byte) 0x80};
        assertEquals(0x8007060504030201L, LittleEndian.readLong(bytes, 0));
    }

    @Test
    void aWordPastTheEndIsRejectedOnTheJvm() {
        byte[] bytes = new byte[12];
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> LittleEndian.readLong(bytes, 5));
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> LittleEndian.readLong(bytes, -1));
    }
}
