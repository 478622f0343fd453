package io.ailb.codec.map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.List;
import java.util.Map;

/**
 * Any bytes as a serialized proxy-wasm map (the upstream host list, header maps; docs/reliability.md, "Fuzzing"): a
 * list of entries or a {@link ProxyMapException}, never another exception, and never more entries than the bytes can
 * hold. The format has one encoding per map, so what decodes encodes back to the same bytes.
 */
final class ProxyMapsFuzzTest {
    /** Two sizes and two NUL bytes: the least one entry takes. */
    private static final int MIN_ENTRY_BYTES = 10;

    @FuzzTest(maxDuration = "60s")
    void anyBytesDecodeToEntriesOrAProxyMapException(byte[] input) {
        List<Map.Entry<byte[], byte[]>> entries;
        try {
            entries = ProxyMaps.decodeBytes(input, 0, input.length);
        } catch (ProxyMapException e) {
            assertTrue(e.offset() >= 0 && e.offset() <= input.length, "error offset inside the input: " + e);
            return;
        }
        assertTrue(entries.size() <= input.length / MIN_ENTRY_BYTES, entries.size() + " entries");
        if (input.length > 0) {
            assertArrayEquals(input, ProxyMaps.encodeBytes(entries));
        }
        // The text view never fails where the byte view did not (invalid UTF-8 becomes U+FFFD).
        assertEquals(entries.size(), ProxyMaps.decode(input, 0, input.length).size());
    }
}
