package io.ailb.teavm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;

class WasmMemoryLimitsTest {
    private static final byte[] TYPE_SECTION = {1, 4, 1, 0x60, 0, 0};
    private static final byte[] EXPORT_SECTION = {7, 10, 1, 6, 'm', 'e', 'm', 'o', 'r', 'y', 2, 0};

    @Test
    void readsAndRaisesTheMaximumKeepingOtherSections() {
        // memory: flags 1, min 1, max 1096 (LEB128 0xC8 0x08)
        byte[] module = module(new byte[] {5, 5, 1, 1, 1, (byte) 0xC8, 0x08});
        assertEquals(new WasmMemoryLimits.Limits(1, 1096), WasmMemoryLimits.read(module));

        byte[] raised = WasmMemoryLimits.withMaximum(module, 65536);
        assertEquals(new WasmMemoryLimits.Limits(1, 65536), WasmMemoryLimits.read(raised));
        assertArrayEquals(module(new byte[] {5, 6, 1, 1, 1, (byte) 0x80, (byte) 0x80, 0x04}), raised);
    }

    @Test
    void rejectsModulesWithoutMemoryAndBadMaxima() {
        byte[] noMemory = module(new byte[0]);
        assertThrows(IllegalArgumentException.class, () -> WasmMemoryLimits.read(noMemory));
        byte[] module = module(new byte[] {5, 4, 1, 1, 2, 3});
        assertThrows(IllegalArgumentException.class, () -> WasmMemoryLimits.withMaximum(module, 1));
        assertThrows(IllegalArgumentException.class, () -> WasmMemoryLimits.withMaximum(module, 65537));
        assertThrows(IllegalArgumentException.class, () -> WasmMemoryLimits.read(new byte[] {1, 2, 3}));
    }

    private static byte[] module(byte[] memorySection) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(new byte[] {0, 'a', 's', 'm', 1, 0, 0, 0});
        out.writeBytes(TYPE_SECTION);
        out.writeBytes(memorySection);
        out.writeBytes(EXPORT_SECTION);
        return out.toByteArray();
    }
}
