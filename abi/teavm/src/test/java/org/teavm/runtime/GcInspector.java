package org.teavm.runtime;

import org.teavm.backend.wasm.WasmHeap;
import org.teavm.interop.Address;

/**
 * What test guests need to see of TeaVM's GC (its state is package-private): where the allocator stands, so a guest
 * can place objects at exact addresses. Compiled into test modules only.
 */
public final class GcInspector {
    private static final int ALIGNMENT = 16;

    private GcInspector() {}

    /** Bytes left in the free chunk the allocator is carving from. */
    public static int currentChunkLeft() {
        return (int)
                (GC.currentChunkLimit.toLong() - GC.currentChunk.toAddress().toLong());
    }

    /** Free chunks left to allocate from, the current one included. */
    public static int freeChunksLeft() {
        return GC.freeChunks;
    }

    public static int heapBytes() {
        return (int) GC.availableBytes();
    }

    public static int heapEnd() {
        return (int) (GC.heapAddress().toLong() + GC.availableBytes());
    }

    public static int address(Object object) {
        return Address.ofObject(object).toInt();
    }

    /**
     * Writes {@code value} into the bytes between the GC's last region entry and the card table, and between its last
     * card and the GC storage (alignment padding that no GC structure owns). After a heap growth they hold whatever
     * the memory held before: the GC must never read them.
     */
    public static void fillPastRegionTables(byte value) {
        int regions = (int) (GC.availableBytes() / WasmHeap.regionSize) + 1;
        fillToAlignment(WasmHeap.regionsAddress.add(2 * regions), value);
        fillToAlignment(WasmHeap.cardTable.add(regions), value);
    }

    private static void fillToAlignment(Address from, byte value) {
        for (Address at = from; at.toInt() % ALIGNMENT != 0; at = at.add(1)) {
            at.putByte(value);
        }
    }
}
