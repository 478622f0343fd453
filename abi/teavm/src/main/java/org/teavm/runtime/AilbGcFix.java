package org.teavm.runtime;

import org.teavm.backend.wasm.WasmHeap;
import org.teavm.interop.Address;
import org.teavm.interop.Unmanaged;

/**
 * Replacement code for TeaVM 0.13.1's {@link GC} (installed by {@code io.ailb.teavm.plugin.GcExactFitTransformer},
 * {@code GcStaticRootsTransformer} and {@code GcRegionTableTransformer}; README "GC storage"). Compiled into the Wasm module only, never run on the
 * JVM; it lives in {@code org.teavm.runtime} to reach GC's package-private state.
 *
 * <p>Exact fits: TeaVM lets an allocation take a free chunk whose size equals the request exactly; the chunk's end
 * then has no free-chunk header. Two places go wrong with that:
 * <ul>
 *   <li>heap growth ({@code computeMinRequestedSize}) asks for exactly the missing bytes, so a large array gets a new
 *       last chunk of exactly its size (or, after rounding the heap to 8 bytes, 1..7 bytes more, which
 *       {@code hasAvailableMemory} rejects: a false "Out of memory"). The array then takes the last free byte of the
 *       heap, the next collection's sweep finds no free chunk at all ({@code freeChunks = 0}), and
 *       {@code defragment} / {@code calculateRelocationTargets} start from a stale free-chunk entry: they overwrite
 *       live objects and walk the corrupted heap forever (or trap);</li>
 *   <li>{@code fixHeap} (run by every {@code System.gc()}) writes a header {classReference 0, size 0} at the current
 *       position even when the chunk is used up, i.e. over the next object (or past the heap end): sweep never
 *       advances past a size-0 chunk.</li>
 * </ul>
 */
@Unmanaged
public final class AilbGcFix {
    /** GC.MIN_CHUNK_SIZE (private there): the size of a free-chunk header. */
    public static final int MIN_CHUNK_SIZE = 8;

    private AilbGcFix() {}

    /**
     * Replaces {@code GC.computeMinRequestedSize(int)}: the heap size needed for {@code size} more bytes, plus room
     * for a free chunk after them. {@code GC.hasAvailableMemory} accepts the current chunk only if it is strictly
     * larger than {@code size + MIN_CHUNK_SIZE} (or exactly {@code size}), and the heap is then rounded up to a
     * multiple of 8; {@code 2 * MIN_CHUNK_SIZE} extra satisfies that whatever the rounding, and the heap never ends
     * in an exactly filled chunk after growing.
     */
    public static long computeMinRequestedSize(int size) {
        long needed = (long) size + 2 * MIN_CHUNK_SIZE;
        if (GC.lastChunk.classReference == 0) {
            needed -= GC.lastChunk.size;
        }
        return GC.availableBytes() + needed;
    }

    /** Replaces {@code GC.fixHeap()}: writes the current chunk's header only if there is room for one. */
    public static void fixHeap() {
        if (GC.freeChunks > 0
                && GC.currentChunk.toAddress().add(MIN_CHUNK_SIZE - 1).isLessThan(GC.currentChunkLimit)) {
            GC.currentChunk.classReference = 0;
            GC.currentChunk.size = (int)
                    (GC.currentChunkLimit.toLong() - GC.currentChunk.toAddress().toLong());
        }
    }

    /**
     * Replaces {@code Mutator.getStaticGCRoots()} for the GC: the static-roots table as the GC reads it, a 32-bit
     * count followed by the field addresses. TeaVM writes the count as 64 bits; the first call moves it into the
     * upper half (which is 0 for any real count) and every call returns the table from there. Data segments are
     * plain writable memory, and the table is read by nothing else.
     */
    public static Address staticGcRoots() {
        Address table = Mutator.getStaticGCRoots();
        int count = table.getInt();
        if (count != 0) {
            table.add(4).putInt(count);
            table.putInt(0);
        }
        return table.add(4);
    }

    /**
     * Replaces {@code WasmHeap.calculateRegionsCount}: the GC's regions (one per started region of the heap, plus
     * one) and one entry more, which {@link #endRegionTable} keeps as the table's end.
     */
    public static int regionsCount(int heapSize, int regionSize) {
        return heapSize / regionSize + 2;
    }

    /**
     * Runs first in {@code GC.calculateRelocationTargets}, whose skip over regions of old objects has no bound and
     * stops only at a region with young objects, a gap, or no object starting in it: the entry after the GC's last
     * region is set to "no object starts here". Its memory belongs to the table ({@link #regionsCount}), but a heap
     * growth leaves old bytes there, so it is cleared before every use.
     */
    public static void endRegionTable() {
        long entry = GC.availableBytes() / WasmHeap.regionSize + 1;
        WasmHeap.regionsAddress.add((int) (2 * entry)).putShort((short) 0);
    }
}
