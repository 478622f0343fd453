package io.ailb.codec.util;

/**
 * Word reads and copies of {@code byte[]} for the hot loops of the request path (hashing, scanning JSON strings,
 * counting UTF-8 code points, decoding escaped strings).
 *
 * <p>On the JVM this is plain Java. In Wasm built by {@code io.ailb.teavm.BuildWasm}, the TeaVM plugin compiles
 * {@link #readLongLE} to one unchecked 64-bit load and the copy behind {@link #copy} to one {@code memory.copy}, both
 * unmanaged (no GC frame, no exception check at the call site). TeaVM checks every array access (a null check, two
 * bounds checks and a GC-root spill per byte), so reading a word byte by byte costs about eight times the load, and
 * {@code System.arraycopy} goes through six calls (about 100 ns on V8 for a 90-byte copy, against 10 ns here).
 *
 * <p>No static state: an initialiser would add a class-initialisation check to every call in TeaVM.
 */
public final class ByteAccess {
    private ByteAccess() {}

    /**
     * The 8 bytes at {@code bytes[index]} as a little-endian long ({@code bytes[index]} is the least significant
     * byte). The caller guarantees {@code 0 <= index <= bytes.length - 8}: the JVM throws otherwise, so tests find a
     * wrong range, while the Wasm load reads whatever lies next to the array. Reads cannot corrupt anything, and
     * checking here would cost as much as the load.
     */
    public static long readLongLE(byte[] bytes, int index) {
        return (bytes[index] & 0xFFL)
                | (bytes[index + 1] & 0xFFL) << 8
                | (bytes[index + 2] & 0xFFL) << 16
                | (bytes[index + 3] & 0xFFL) << 24
                | (bytes[index + 4] & 0xFFL) << 32
                | (bytes[index + 5] & 0xFFL) << 40
                | (bytes[index + 6] & 0xFFL) << 48
                | (long) bytes[index + 7] << 56;
    }

    /** {@code System.arraycopy} for byte arrays; checked here, since a wrong range would overwrite memory in Wasm. */
    public static void copy(byte[] source, int sourceIndex, byte[] target, int targetIndex, int length) {
        if (length < 0
                || sourceIndex < 0
                || targetIndex < 0
                || sourceIndex > source.length - length
                || targetIndex > target.length - length) {
            throw new IndexOutOfBoundsException("copy of " + length + " bytes from " + sourceIndex + " of "
                    + source.length + " to " + targetIndex + " of " + target.length);
        }
        copyChecked(source, sourceIndex, target, targetIndex, length);
    }

    /** The ranges are checked by {@link #copy}; under TeaVM this becomes one {@code memory.copy}. */
    private static void copyChecked(byte[] source, int sourceIndex, byte[] target, int targetIndex, int length) {
        System.arraycopy(source, sourceIndex, target, targetIndex, length);
    }
}
