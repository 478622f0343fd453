package io.ailb.codec.util;

/**
 * Eight bytes of a {@code byte[]} as one little-endian {@code long}, for loops that look at a word at a time (hashing,
 * scanning JSON strings, counting UTF-8 code points).
 *
 * <p>On the JVM this is plain Java. In Wasm built by {@code io.ailb.teavm.BuildWasm}, the TeaVM plugin turns
 * {@link #readLong} into one unchecked 64-bit load (Wasm is little-endian): a TeaVM array access costs a null check,
 * two bounds checks and a GC-root spill per byte, so reading 8 bytes one by one costs about 8 times as much. The
 * caller therefore guarantees {@code 0 <= index <= bytes.length - 8}; the JVM throws when it does not, so tests find
 * a wrong range, while the Wasm load would read the neighbouring heap bytes.
 *
 * <p>No static state: an initialiser would add a class-initialisation check to every call in TeaVM.
 */
public final class LittleEndian {
    private LittleEndian() {}

    /** {@code bytes[index]} is the least significant byte. */
    public static long readLong(byte[] bytes, int index) {
        return (bytes[index] & 0xFFL)
                | (bytes[index + 1] & 0xFFL) << 8
                | (bytes[index + 2] & 0xFFL) << 16
                | (bytes[index + 3] & 0xFFL) << 24
                | (bytes[index + 4] & 0xFFL) << 32
                | (bytes[index + 5] & 0xFFL) << 40
                | (bytes[index + 6] & 0xFFL) << 48
                | (long) bytes[index + 7] << 56;
    }
}
