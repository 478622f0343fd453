package io.ailb.codec.map;

import io.ailb.codec.util.Utf8;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The proxy-wasm map serialization (header maps, upstream host lists): a little-endian u32 entry count, then a u32 key
 * length and a u32 value length per entry, then every key and value, each followed by a NUL byte. Order and duplicate
 * keys are preserved.
 */
public final class ProxyMaps {
    private static final int COUNT_BYTES = 4;
    private static final int SIZES_PER_ENTRY = 8;

    private ProxyMaps() {}

    /** Serializes text entries as UTF-8. */
    public static byte[] encode(List<Map.Entry<String, String>> entries) {
        List<Map.Entry<byte[], byte[]>> utf8 = new ArrayList<>(entries.size());
        for (Map.Entry<String, String> entry : entries) {
            utf8.add(Map.entry(Utf8.encode(entry.getKey()), Utf8.encode(entry.getValue())));
        }
        return encodeBytes(utf8);
    }

    /** Serializes raw entries. */
    public static byte[] encodeBytes(List<Map.Entry<byte[], byte[]>> entries) {
        long size = COUNT_BYTES + (long) SIZES_PER_ENTRY * entries.size();
        for (Map.Entry<byte[], byte[]> entry : entries) {
            size += entry.getKey().length + 1L + entry.getValue().length + 1L;
        }
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("serialized map would take " + size + " bytes");
        }
        byte[] out = new byte[(int) size];
        writeU32(out, 0, entries.size());
        int sizes = COUNT_BYTES;
        int data = COUNT_BYTES + SIZES_PER_ENTRY * entries.size();
        for (Map.Entry<byte[], byte[]> entry : entries) {
            byte[] key = entry.getKey();
            byte[] value = entry.getValue();
            writeU32(out, sizes, key.length);
            writeU32(out, sizes + 4, value.length);
            sizes += SIZES_PER_ENTRY;
            // The NUL terminators are already there: new arrays are zero-filled.
            System.arraycopy(key, 0, out, data, key.length);
            data += key.length + 1;
            System.arraycopy(value, 0, out, data, value.length);
            data += value.length + 1;
        }
        return out;
    }

    /**
     * Deserializes into a new list of UTF-8 decoded entries (invalid UTF-8 becomes U+FFFD; use {@link #decodeBytes}
     * for exact bytes). Zero bytes decode to an empty list.
     *
     * @throws ProxyMapException if the data is truncated, inconsistent or has bytes left over
     */
    public static List<Map.Entry<String, String>> decode(byte[] data, int offset, int length) {
        return decode(data, offset, length, Utf8::decode);
    }

    /** Like {@link #decode} but keeps keys and values as raw bytes. */
    public static List<Map.Entry<byte[], byte[]>> decodeBytes(byte[] data, int offset, int length) {
        return decode(data, offset, length, (buf, from, size) -> {
            byte[] copy = new byte[size];
            System.arraycopy(buf, from, copy, 0, size);
            return copy;
        });
    }

    /** Turns a slice of the serialized data into a key or value. */
    private interface Slice<T> {
        T of(byte[] data, int from, int size);
    }

    private static <T> List<Map.Entry<T, T>> decode(byte[] data, int offset, int length, Slice<T> slice) {
        if (offset < 0 || length < 0 || offset > data.length - length) {
            throw new IndexOutOfBoundsException("offset " + offset + ", length " + length + ", array " + data.length);
        }
        List<Map.Entry<T, T>> entries = new ArrayList<>();
        if (length == 0) {
            return entries;
        }
        int end = offset + length;
        if (length < COUNT_BYTES) {
            throw new ProxyMapException(offset, "truncated entry count: " + length + " bytes");
        }
        long count = readU32(data, offset);
        // Each entry needs its two sizes and two NUL bytes at least; checked before trusting count for anything.
        if (count > (length - COUNT_BYTES) / (SIZES_PER_ENTRY + 2)) {
            throw new ProxyMapException(offset, "entry count " + count + " does not fit in " + length + " bytes");
        }
        int sizes = offset + COUNT_BYTES;
        long pos = sizes + SIZES_PER_ENTRY * count;
        for (int i = 0; i < count; i++, sizes += SIZES_PER_ENTRY) {
            long keySize = readU32(data, sizes);
            long valueSize = readU32(data, sizes + 4);
            T key = field(data, pos, keySize, end, slice, "key " + i);
            pos += keySize + 1;
            T value = field(data, pos, valueSize, end, slice, "value " + i);
            pos += valueSize + 1;
            entries.add(Map.entry(key, value));
        }
        if (pos != end) {
            throw new ProxyMapException((int) pos, (end - pos) + " bytes left after " + count + " entries");
        }
        return entries;
    }

    private static <T> T field(byte[] data, long pos, long size, int end, Slice<T> slice, String what) {
        if (size >= end - pos) {
            throw new ProxyMapException((int) pos, what + " of " + size + " bytes and its NUL run past the end");
        }
        int nul = (int) (pos + size);
        if (data[nul] != 0) {
            throw new ProxyMapException(nul, what + " is not followed by a NUL byte");
        }
        return slice.of(data, (int) pos, (int) size);
    }

    private static long readU32(byte[] data, int at) {
        return (data[at] & 0xFFL)
                | (data[at + 1] & 0xFFL) << 8
                | (data[at + 2] & 0xFFL) << 16
                | (data[at + 3] & 0xFFL) << 24;
    }

    private static void writeU32(byte[] out, int at, int value) {
        out[at] = (byte) value;
        out[at + 1] = (byte) (value >>> 8);
        out[at + 2] = (byte) (value >>> 16);
        out[at + 3] = (byte) (value >>> 24);
    }
}
