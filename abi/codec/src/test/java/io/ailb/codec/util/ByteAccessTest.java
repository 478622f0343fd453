package io.ailb.codec.util;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ByteAccessTest {
    @Test
    void readsTheSameLongAsALittleEndianByteBuffer() {
        SplittableRandom random = new SplittableRandom(5);
        byte[] bytes = new byte[64];
        for (int n = 0; n < 200; n++) {
            random.nextBytes(bytes);
            ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            for (int index = 0; index <= bytes.length - 8; index++) {
                assertEquals(buffer.getLong(index), ByteAccess.readLongLE(bytes, index), "index " + index);
            }
        }
    }

    @Test
    void theFirstByteIsTheLeastSignificant() {
        byte[] bytes = {1, 2, 3, 4, 5, 6, 7, (byte) 0x80};
        assertEquals(0x8007060504030201L, ByteAccess.readLongLE(bytes, 0));
    }

    @Test
    void aWordPastTheEndIsRejectedOnTheJvm() {
        byte[] bytes = new byte[12];
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> ByteAccess.readLongLE(bytes, 5));
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> ByteAccess.readLongLE(bytes, -1));
    }

    @Test
    void copiesARangeAndLeavesTheRestOfTheTarget() {
        byte[] source = {1, 2, 3, 4, 5, 6};
        byte[] target = new byte[8];
        Arrays.fill(target, (byte) 9);
        ByteAccess.copy(source, 1, target, 3, 4);
        assertArrayEquals(new byte[] {9, 9, 9, 2, 3, 4, 5, 9}, target);
        ByteAccess.copy(source, 6, target, 8, 0);
        assertArrayEquals(new byte[] {9, 9, 9, 2, 3, 4, 5, 9}, target);
    }

    @Test
    void copyRejectsEveryRangeOutsideEitherArray() {
        byte[] source = new byte[6];
        byte[] target = new byte[8];
        assertThrows(IndexOutOfBoundsException.class, () -> ByteAccess.copy(source, 3, target, 0, 4));
        assertThrows(IndexOutOfBoundsException.class, () -> ByteAccess.copy(source, 0, target, 5, 4));
        assertThrows(IndexOutOfBoundsException.class, () -> ByteAccess.copy(source, -1, target, 0, 2));
        assertThrows(IndexOutOfBoundsException.class, () -> ByteAccess.copy(source, 0, target, -1, 2));
        assertThrows(IndexOutOfBoundsException.class, () -> ByteAccess.copy(source, 0, target, 0, -1));
        assertThrows(IndexOutOfBoundsException.class, () -> ByteAccess.copy(source, 1, target, 0, Integer.MAX_VALUE));
    }
}
