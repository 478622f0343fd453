package io.ailb.teavm.plugin;

/** The GC storage size our TeaVM plugin gives the module (see {@link GcStorageTransformer}), for the build driver. */
public final class GcStorage {
    private static final int PAGE = 65536;

    private GcStorage() {}

    /** Bytes of GC storage for a heap of {@code heapBytes}: TeaVM's heap / 16 replaced by the heap size. */
    public static long storageBytes(long heapBytes) {
        return heapBytes;
    }

    /**
     * The maximum memory the module must declare: TeaVM's own maximum (computed with heap / 16 of storage) plus the
     * extra storage at the maximum heap, plus one page of alignment slack.
     */
    public static long maxMemoryPages(long teavmMaxPages, long maxHeapBytes) {
        long extra = storageBytes(maxHeapBytes) - maxHeapBytes / 16;
        return teavmMaxPages + (extra + PAGE - 1) / PAGE + 1;
    }
}
