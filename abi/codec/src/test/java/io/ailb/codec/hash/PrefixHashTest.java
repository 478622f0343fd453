package io.ailb.codec.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

final class PrefixHashTest {

    /** The class javadoc's definition, written out plainly (one call, ByteBuffer lanes, Long.rotateLeft). */
    private static long[] reference(long k0, long k1, byte[] data) {
        long m1 = 0x87c37b91114253d5L;
        long m2 = 0x4cf5ad432745937fL;
        long a = k0 ^ 0x243F6A8885A308D3L;
        long b = k1 ^ 0x13198A2E03707344L;
        int stripes = data.length / 16;
        ByteBuffer lanes = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        for (int s = 0; s < stripes; s++) {
            long x = lanes.getLong(16 * s);
            long y = lanes.getLong(16 * s + 8);
            a ^= Long.rotateLeft(x * m1, 31) * m2;
            a = Long.rotateLeft(a, 27) + b;
            a = a * 5 + 0x52dce729;
            b ^= Long.rotateLeft(y * m2, 33) * m1;
            b = Long.rotateLeft(b, 31) + a;
            b = b * 5 + 0x38495ab5;
        }
        int rest = data.length - 16 * stripes;
        byte[] padded = new byte[16];
        System.arraycopy(data, 16 * stripes, padded, 0, rest);
        ByteBuffer last = ByteBuffer.wrap(padded).order(ByteOrder.LITTLE_ENDIAN);
        if (rest > 8) {
            b ^= Long.rotateLeft(last.getLong(8) * m2, 33) * m1;
        }
        if (rest > 0) {
            a ^= Long.rotateLeft(last.getLong(0) * m1, 31) * m2;
        }
        a ^= data.length;
        b ^= data.length;
        a += b;
        b += a;
        a = fmix(a);
        b = fmix(b);
        a += b;
        b += a;
        return new long[] {a, b};
    }

    private static long fmix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    private static PrefixHash hashed(long k0, long k1, byte[] data) {
        PrefixHash h = new PrefixHash();
        h.reset(k0, k1);
        h.update(data, 0, data.length);
        h.finish();
        return h;
    }

    @Test
    void matchesTheDocumentedDefinitionAtEveryLengthAndKey() {
        Random random = new Random(91);
        for (int length = 0; length < 300; length++) {
            byte[] data = new byte[length];
            random.nextBytes(data);
            long k0 = length % 3 == 0 ? 0 : random.nextLong();
            long k1 = length % 3 == 0 ? 0 : random.nextLong();
            long[] expected = reference(k0, k1, data);
            PrefixHash h = hashed(k0, k1, data);
            assertEquals(expected[0], h.digestA(), "length " + length);
            assertEquals(expected[1], h.digestB(), "length " + length);
            assertEquals(String.format("%016x%016x", expected[0], expected[1]), h.hex());
        }
    }

    @Test
    void anySplitIntoWritesGivesTheSameDigest() {
        Random random = new Random(7);
        for (int round = 0; round < 500; round++) {
            byte[] data = new byte[random.nextInt(200)];
            random.nextBytes(data);
            PrefixHash whole = hashed(1, 2, data);
            PrefixHash pieces = new PrefixHash();
            pieces.reset(1, 2);
            int at = 0;
            while (at < data.length) {
                int take = Math.min(data.length - at, random.nextInt(20));
                pieces.update(data, at, take);
                at += take;
            }
            pieces.finish();
            assertEquals(whole.hex(), pieces.hex());
        }
    }

    @Test
    void trailingZerosTheKeyAndEveryBitChangeTheDigest() {
        assertNotEquals(
                hashed(0, 0, new byte[0]).hex(), hashed(0, 0, new byte[1]).hex());
        assertNotEquals(
                hashed(0, 0, new byte[15]).hex(), hashed(0, 0, new byte[16]).hex());
        assertNotEquals(
                hashed(0, 0, new byte[4]).hex(), hashed(0, 1, new byte[4]).hex());
        assertNotEquals(
                hashed(0, 0, new byte[4]).hex(), hashed(1, 0, new byte[4]).hex());
        byte[] data = new byte[40];
        Set<String> seen = new HashSet<>();
        seen.add(hashed(0, 0, data).hex());
        for (int bit = 0; bit < 8 * data.length; bit++) {
            data[bit / 8] ^= (byte) (1 << (bit % 8));
            assertTrue(seen.add(hashed(0, 0, data).hex()), "bit " + bit);
            data[bit / 8] ^= (byte) (1 << (bit % 8));
        }
    }

    @Test
    void aFlippedInputBitFlipsAboutHalfTheDigestBits() {
        Random random = new Random(3);
        long flipped = 0;
        int trials = 2000;
        for (int i = 0; i < trials; i++) {
            byte[] data = new byte[1 + random.nextInt(64)];
            random.nextBytes(data);
            PrefixHash before = hashed(0, 0, data);
            long a = before.digestA();
            long b = before.digestB();
            int bit = random.nextInt(8 * data.length);
            data[bit / 8] ^= (byte) (1 << (bit % 8));
            PrefixHash after = hashed(0, 0, data);
            flipped += Long.bitCount(a ^ after.digestA()) + Long.bitCount(b ^ after.digestB());
        }
        double mean = (double) flipped / trials;
        assertTrue(mean > 60 && mean < 68, "mean flipped bits " + mean);
    }

    @Test
    void chainingByTheDigestKeepsPrefixesApart() {
        PrefixHash h = new PrefixHash();
        byte[] block = {'x'};
        h.update(block, 0, 1);
        h.finish();
        String first = h.hex();
        h.reset(h.digestA(), h.digestB());
        h.update(block, 0, 1);
        h.finish();
        assertNotEquals(first, h.hex(), "the same block after itself hashes differently");
        assertEquals(first, PrefixHash.hexOf(block, 0, 1));
    }

    @Test
    void aCopyContinuesFromTheSameState() {
        byte[] data = new byte[50];
        new Random(5).nextBytes(data);
        PrefixHash original = new PrefixHash();
        original.reset(9, 10);
        original.update(data, 0, 21);
        PrefixHash copy = new PrefixHash();
        copy.copyFrom(original);
        original.update(data, 21, 29);
        copy.update(data, 21, 29);
        original.finish();
        copy.finish();
        assertEquals(hashed(9, 10, data).hex(), copy.hex());
        assertEquals(original.hex(), copy.hex());
    }

    @Test
    void rejectsRangesOutsideTheArray() {
        PrefixHash h = new PrefixHash();
        assertThrows(IndexOutOfBoundsException.class, () -> h.update(new byte[4], 2, 3));
        assertThrows(IndexOutOfBoundsException.class, () -> h.update(new byte[4], -1, 1));
    }

    @Test
    void theHexDigestReadsBackAsItsTwoWords() {
        PrefixHash h = new PrefixHash();
        byte[] data = "a system prompt".getBytes(StandardCharsets.UTF_8);
        h.update(data, 0, data.length);
        h.finish();
        String hex = h.hex();
        assertEquals(h.digestA(), PrefixHash.wordAt(hex, 0));
        assertEquals(h.digestB(), PrefixHash.wordAt(hex, 16));
        assertEquals(hex, PrefixHash.hexOfWords(h.digestA(), h.digestB()));
        assertEquals(hex, PrefixHash.hexOfWords(PrefixHash.wordAt(hex.toUpperCase(), 0), h.digestB()));
        // Text that is not a digest still maps to a word: missing and non-hex digits read as 0.
        assertEquals(0xab00_0000_0000_0000L, PrefixHash.wordAt("ab", 0));
        assertEquals(0x1002_0000_0000_0000L, PrefixHash.wordAt("1x02", 0));
    }
}
