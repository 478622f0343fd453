package io.ailb.codec.hash;

import io.ailb.codec.util.Hex;

/**
 * SHA-1 (FIPS 180-4), for Redis script ids ({@code EVALSHA}); the Wasm classlib has no MessageDigest. Incremental and
 * allocation-free per block; not thread-safe.
 */
public final class Sha1 {
    public static final int DIGEST_LENGTH = 20;

    private static final int BLOCK_LENGTH = 64;

    private final int[] state = new int[5];
    private final byte[] block = new byte[BLOCK_LENGTH];
    private final int[] schedule = new int[80];
    private int blockFill;
    private long totalBytes;

    public Sha1() {
        reset();
    }

    /** The digest of {@code data} in one call. */
    public static byte[] digest(byte[] data) {
        Sha1 sha1 = new Sha1();
        sha1.update(data, 0, data.length);
        return sha1.digest();
    }

    /** Lower-case hex of a digest (any byte array). */
    public static String hex(byte[] digest) {
        return Hex.encode(digest);
    }

    public void reset() {
        state[0] = 0x67452301;
        state[1] = 0xEFCDAB89;
        state[2] = 0x98BADCFE;
        state[3] = 0x10325476;
        state[4] = 0xC3D2E1F0;
        blockFill = 0;
        totalBytes = 0;
    }

    public void update(byte b) {
        block[blockFill++] = b;
        totalBytes++;
        if (blockFill == BLOCK_LENGTH) {
            compress(block, 0);
            blockFill = 0;
        }
    }

    public void update(byte[] data, int offset, int length) {
        if (offset < 0 || length < 0 || offset > data.length - length) {
            throw new IndexOutOfBoundsException("offset " + offset + ", length " + length + ", array " + data.length);
        }
        totalBytes += length;
        int end = offset + length;
        if (blockFill > 0) {
            int take = Math.min(BLOCK_LENGTH - blockFill, length);
            System.arraycopy(data, offset, block, blockFill, take);
            blockFill += take;
            offset += take;
            if (blockFill < BLOCK_LENGTH) {
                return;
            }
            compress(block, 0);
            blockFill = 0;
        }
        // Whole blocks straight from the input, no copy.
        for (; end - offset >= BLOCK_LENGTH; offset += BLOCK_LENGTH) {
            compress(data, offset);
        }
        blockFill = end - offset;
        System.arraycopy(data, offset, block, 0, blockFill);
    }

    /** Finishes the hash and returns the 20-byte digest; the instance is then reset for reuse. */
    public byte[] digest() {
        long bitLength = totalBytes << 3;
        block[blockFill++] = (byte) 0x80;
        if (blockFill > BLOCK_LENGTH - 8) {
            fillZeros(BLOCK_LENGTH);
            compress(block, 0);
            blockFill = 0;
        }
        fillZeros(BLOCK_LENGTH - 8);
        for (int i = 0; i < 8; i++) {
            block[BLOCK_LENGTH - 1 - i] = (byte) (bitLength >>> (8 * i));
        }
        compress(block, 0);
        byte[] out = new byte[DIGEST_LENGTH];
        for (int i = 0; i < 5; i++) {
            int word = state[i];
            out[4 * i] = (byte) (word >>> 24);
            out[4 * i + 1] = (byte) (word >>> 16);
            out[4 * i + 2] = (byte) (word >>> 8);
            out[4 * i + 3] = (byte) word;
        }
        reset();
        return out;
    }

    private void fillZeros(int upTo) {
        while (blockFill < upTo) {
            block[blockFill++] = 0;
        }
    }

    /**
     * One 64-byte block. Rotations are written inline and the 80 rounds are four loops of 20 without a branch: under
     * TeaVM {@code Integer.rotateLeft} is a call with a class-initialisation check and a GC frame (V8 does not inline
     * Wasm calls): with it, SHA-1 ran at ≈ 150 MB/s in Wasm on V8, inline ≈ 180 MB/s (docs/benchmarks.md, v8-hash).
     */
    private void compress(byte[] data, int offset) {
        int[] w = schedule;
        for (int i = 0; i < 16; i++) {
            int p = offset + 4 * i;
            w[i] = (data[p] << 24) | ((data[p + 1] & 0xFF) << 16) | ((data[p + 2] & 0xFF) << 8) | (data[p + 3] & 0xFF);
        }
        for (int i = 16; i < 80; i++) {
            int x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16];
            w[i] = (x << 1) | (x >>> 31);
        }
        int a = state[0];
        int b = state[1];
        int c = state[2];
        int d = state[3];
        int e = state[4];
        for (int i = 0; i < 20; i++) {
            int t = ((a << 5) | (a >>> 27)) + ((b & c) | (~b & d)) + e + 0x5A827999 + w[i];
            e = d;
            d = c;
            c = (b << 30) | (b >>> 2);
            b = a;
            a = t;
        }
        for (int i = 20; i < 40; i++) {
            int t = ((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0x6ED9EBA1 + w[i];
            e = d;
            d = c;
            c = (b << 30) | (b >>> 2);
            b = a;
            a = t;
        }
        for (int i = 40; i < 60; i++) {
            int t = ((a << 5) | (a >>> 27)) + ((b & c) | (b & d) | (c & d)) + e + 0x8F1BBCDC + w[i];
            e = d;
            d = c;
            c = (b << 30) | (b >>> 2);
            b = a;
            a = t;
        }
        for (int i = 60; i < 80; i++) {
            int t = ((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0xCA62C1D6 + w[i];
            e = d;
            d = c;
            c = (b << 30) | (b >>> 2);
            b = a;
            a = t;
        }
        state[0] += a;
        state[1] += b;
        state[2] += c;
        state[3] += d;
        state[4] += e;
    }
}
