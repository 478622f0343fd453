package io.ailb.codec.hash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Random;
import org.junit.jupiter.api.Test;

final class Sha1Test {

    private static final int[] BOUNDARY_LENGTHS = {0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129};

    @Test
    void knownVectorsFromFips180() {
        assertEquals("da39a3ee5e6b4b0d3255bfef95601890afd80709", Sha1.hex(Sha1.digest(new byte[0])));
        assertEquals("a9993e364706816aba3e25717850c26c9cd0d89d", Sha1.hex(Sha1.digest(ascii("abc"))));
        assertEquals(
                "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
                Sha1.hex(Sha1.digest(ascii("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))));
    }

    @Test
    void millionAsFedOneByteAtATime() {
        Sha1 sha1 = new Sha1();
        for (int i = 0; i < 1_000_000; i++) {
            sha1.update((byte) 'a');
        }
        assertEquals("34aa973cd4c4daa4f61eeb2bdbad27316534016f", Sha1.hex(sha1.digest()));
    }

    @Test
    void matchesMessageDigestOnRandomInputsOfRandomLengths() {
        Random random = new Random(20240611L);
        for (int round = 0; round < 3000; round++) {
            int length = round < BOUNDARY_LENGTHS.length ? BOUNDARY_LENGTHS[round] : random.nextInt(5001);
            byte[] data = new byte[length];
            random.nextBytes(data);
            assertArrayEquals(reference(data), Sha1.digest(data), "length " + length);
        }
    }

    @Test
    void matchesMessageDigestWhenInputIsSplitIntoRandomUpdates() {
        Random random = new Random(7L);
        Sha1 sha1 = new Sha1();
        for (int round = 0; round < 2000; round++) {
            int length = round < BOUNDARY_LENGTHS.length ? BOUNDARY_LENGTHS[round] : random.nextInt(5001);
            byte[] data = new byte[length];
            random.nextBytes(data);
            int pos = 0;
            while (pos < length) {
                if (random.nextInt(8) == 0) {
                    sha1.update(data[pos++]);
                } else {
                    int chunk = Math.min(length - pos, random.nextInt(130));
                    sha1.update(data, pos, chunk);
                    pos += chunk;
                }
            }
            // The instance is reused across rounds: digest() must leave it reset.
            assertArrayEquals(reference(data), sha1.digest(), "length " + length);
        }
    }

    @Test
    void updateHonoursOffsetAndLength() {
        byte[] framed = ascii("xxabcyy");
        Sha1 sha1 = new Sha1();
        sha1.update(framed, 2, 3);
        assertEquals("a9993e364706816aba3e25717850c26c9cd0d89d", Sha1.hex(sha1.digest()));
    }

    @Test
    void resetDiscardsPendingInput() {
        Sha1 sha1 = new Sha1();
        sha1.update(ascii("garbage that must not count"), 0, 27);
        sha1.reset();
        sha1.update(ascii("abc"), 0, 3);
        assertEquals("a9993e364706816aba3e25717850c26c9cd0d89d", Sha1.hex(sha1.digest()));
    }

    @Test
    void updateRejectsRangesOutsideTheArray() {
        Sha1 sha1 = new Sha1();
        assertThrows(IndexOutOfBoundsException.class, () -> sha1.update(new byte[4], 3, 2));
        assertThrows(IndexOutOfBoundsException.class, () -> sha1.update(new byte[4], -1, 1));
    }

    private static byte[] reference(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-1").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
