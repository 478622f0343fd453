package io.ailb.codec.map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

final class ProxyMapsTest {

    @Test
    void encodesTheDocumentedLayout() {
        byte[] encoded = ProxyMaps.encode(List.of(Map.entry(":path", "/v1"), Map.entry("a", "")));
        byte[] expected = {
            2, 0, 0, 0, 5, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, ':', 'p', 'a', 't', 'h', 0, '/', 'v', '1', 0,
            'a', 0, 0,
        };
        assertArrayEquals(expected, encoded);
    }

    @Test
    void roundTripsUtf8OrderDuplicatesAndEmptyStrings() {
        List<Map.Entry<String, String>> entries = List.of(
                Map.entry("x-model", "通义千问"),
                Map.entry("emoji", "😀🚀"),
                Map.entry("set-cookie", "a=1"),
                Map.entry("set-cookie", "b=2"),
                Map.entry("", "empty key"),
                Map.entry("empty-value", ""),
                Map.entry("", ""));
        byte[] encoded = ProxyMaps.encode(entries);
        assertEquals(entries, ProxyMaps.decode(encoded, 0, encoded.length));
    }

    @Test
    void decodesAtAnOffsetWithinALargerBuffer() {
        byte[] encoded = ProxyMaps.encode(List.of(Map.entry("k", "v")));
        byte[] buf = new byte[encoded.length + 7];
        buf[0] = 42;
        buf[buf.length - 1] = 42;
        System.arraycopy(encoded, 0, buf, 3, encoded.length);
        assertEquals(List.of(Map.entry("k", "v")), ProxyMaps.decode(buf, 3, encoded.length));
    }

    @Test
    void emptyDataAndZeroCountAreEmptyMaps() {
        assertEquals(List.of(), ProxyMaps.decode(new byte[0], 0, 0));
        byte[] encoded = ProxyMaps.encode(List.of());
        assertArrayEquals(new byte[] {0, 0, 0, 0}, encoded);
        assertEquals(List.of(), ProxyMaps.decode(encoded, 0, 4));
    }

    @Test
    void bytesVariantKeepsInvalidUtf8AndNulBytes() {
        byte[] key = {(byte) 0xFF, 0, 'k'};
        byte[] value = {(byte) 0xC3};
        byte[] encoded = ProxyMaps.encodeBytes(List.of(Map.entry(key, value)));
        List<Map.Entry<byte[], byte[]>> decoded = ProxyMaps.decodeBytes(encoded, 0, encoded.length);
        assertEquals(1, decoded.size());
        assertArrayEquals(key, decoded.get(0).getKey());
        assertArrayEquals(value, decoded.get(0).getValue());
    }

    @Test
    void everyTruncationFailsWithAMapException() {
        byte[] encoded = ProxyMaps.encode(List.of(Map.entry("host", "a.example"), Map.entry("id", "7")));
        for (int cut = 1; cut < encoded.length; cut++) {
            int length = cut;
            ProxyMapException e =
                    assertThrows(ProxyMapException.class, () -> ProxyMaps.decode(encoded, 0, length), "cut at " + cut);
            assertTrue(e.offset() >= 0 && e.offset() <= length, e.getMessage());
        }
    }

    @Test
    void countLargerThanTheDataCanHoldIsRejectedBeforeAllocating() {
        byte[] data = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        ProxyMapException e = assertThrows(ProxyMapException.class, () -> ProxyMaps.decode(data, 0, data.length));
        assertEquals(0, e.offset());
    }

    @Test
    void sizesPointingBeyondTheDataAreRejected() {
        byte[] data = ProxyMaps.encode(List.of(Map.entry("k", "v")));
        data[4] = (byte) 0xFF;
        data[7] = (byte) 0xFF; // key size 0xFF0000FF
        ProxyMapException e = assertThrows(ProxyMapException.class, () -> ProxyMaps.decode(data, 0, data.length));
        assertEquals(12, e.offset());
    }

    @Test
    void missingNulTerminatorIsRejected() {
        byte[] data = ProxyMaps.encode(List.of(Map.entry("k", "v")));
        data[13] = 'x';
        ProxyMapException e = assertThrows(ProxyMapException.class, () -> ProxyMaps.decode(data, 0, data.length));
        assertEquals(13, e.offset());
    }

    @Test
    void trailingBytesAreRejected() {
        byte[] encoded = ProxyMaps.encode(List.of(Map.entry("k", "v")));
        byte[] padded = new byte[encoded.length + 1];
        System.arraycopy(encoded, 0, padded, 0, encoded.length);
        ProxyMapException e = assertThrows(ProxyMapException.class, () -> ProxyMaps.decode(padded, 0, padded.length));
        assertEquals(encoded.length, e.offset());
    }

    @Test
    void rangesOutsideTheArrayAreRejected() {
        assertThrows(IndexOutOfBoundsException.class, () -> ProxyMaps.decode(new byte[4], 1, 4));
    }

    @Test
    void randomMapsRoundTrip() {
        Random random = new Random(99L);
        for (int round = 0; round < 500; round++) {
            List<Map.Entry<String, String>> entries = new ArrayList<>();
            int size = random.nextInt(20);
            for (int i = 0; i < size; i++) {
                entries.add(Map.entry(randomText(random), randomText(random)));
            }
            byte[] encoded = ProxyMaps.encode(entries);
            assertEquals(entries, ProxyMaps.decode(encoded, 0, encoded.length));
        }
    }

    /** Code points from ASCII, CJK and the supplementary planes, never a lone surrogate. */
    private static String randomText(Random random) {
        StringBuilder text = new StringBuilder();
        int length = random.nextInt(12);
        for (int i = 0; i < length; i++) {
            switch (random.nextInt(3)) {
                case 0:
                    text.append((char) (0x20 + random.nextInt(0x5F)));
                    break;
                case 1:
                    text.append((char) (0x4E00 + random.nextInt(0x5000)));
                    break;
                default:
                    text.appendCodePoint(0x1F300 + random.nextInt(0x300));
                    break;
            }
        }
        return text.toString();
    }
}
