package io.ailb.teavm.guest;

import java.util.ArrayList;
import java.util.List;
import org.teavm.interop.Address;
import org.teavm.interop.Export;
import org.teavm.runtime.AilbGcFix;
import org.teavm.runtime.GcInspector;

/**
 * Allocates well past the initial heap, live and garbage, for HeapGrowthTest. Each pattern crashed TeaVM 0.13.1's
 * GC with its default GC storage (heap / 16) before the heap could grow; see README "GC storage".
 */
public final class HeapGuest {
    private static List<Object> live = new ArrayList<>();
    private static Node chain;
    private static Object sink;
    private static byte[] big;
    private static byte[] oldBody;
    private static byte[] oldTail;

    private HeapGuest() {}

    public static void main(String[] args) {}

    @Export(name = "proxy_abi_version_0_2_100")
    public static void abiVersion() {}

    @Export(name = "proxy_on_memory_allocate")
    public static int allocate(int size) {
        byte[] buffer = new byte[size];
        sink = buffer;
        return Address.ofData(buffer).toInt();
    }

    /** Drops everything this guest keeps alive. */
    @Export(name = "heap_reset")
    public static void reset() {
        live = new ArrayList<>();
        chain = null;
        sink = null;
        big = null;
    }

    /**
     * Keeps {@code lists} ArrayLists of {@code items} distinct Integers alive; returns the sum of all items. Marking
     * queues every list, then every item at once: more than heap / 64 queued objects overflowed the mark queue
     * ("Out of memory", unreachable trap).
     */
    @Export(name = "heap_lists")
    public static long lists(int lists, int items) {
        for (int i = 0; i < lists; i++) {
            List<Integer> list = new ArrayList<>(items);
            for (int j = 0; j < items; j++) {
                list.add(i + j);
            }
            live.add(list);
        }
        long sum = 0;
        for (Object list : live) {
            for (Integer item : (List<Integer>) list) {
                sum += item;
            }
        }
        return sum;
    }

    /**
     * Links {@code nodes} small objects into a chain with one dead object after each, so a collection finds one gap
     * per node: more than heap / 64 gaps overflowed the free-chunk list off the end of memory ("out of bounds memory
     * access"). Returns the chain length.
     */
    @Export(name = "heap_chain_with_gaps")
    public static int chainWithGaps(int nodes) {
        for (int i = 0; i < nodes; i++) {
            Node node = new Node();
            node.next = chain;
            node.value = i;
            chain = node;
            sink = new int[1];
        }
        sink = null;
        int length = 0;
        for (Node node = chain; node != null; node = node.next) {
            length++;
        }
        return length;
    }

    /** Allocates {@code count} dead arrays of {@code size} bytes; returns a checksum. */
    @Export(name = "heap_churn")
    public static int churn(int count, int size) {
        int sum = 0;
        for (int i = 0; i < count; i++) {
            byte[] garbage = new byte[size];
            garbage[i % size] = (byte) i;
            sum += garbage[i % size];
        }
        return sum;
    }

    /** Keeps one byte[] of {@code size} bytes alive; returns the number of 4 KiB pages it touched. */
    @Export(name = "heap_big_array")
    public static int bigArray(int size) {
        byte[] array = new byte[size];
        for (int i = 0; i < size; i += 4096) {
            array[i] = 1;
        }
        big = array;
        int pages = 0;
        for (int i = 0; i < size; i += 4096) {
            pages += big[i];
        }
        return pages;
    }

    /**
     * Keeps one byte[] of {@code size} bytes alive, then allocates {@code count} small dead arrays. With a size that
     * makes the heap grow by exactly the array (e.g. 8 MiB - 12), the array took the last free byte and TeaVM's next
     * collection looped forever in calculateRelocationTargets / sweep; with 1..7 bytes more it ended in a false
     * "Out of memory". Returns the array's last byte plus the number of odd values seen.
     */
    @Export(name = "heap_big_then_alloc")
    public static int bigThenAlloc(int size, int count) {
        big = new byte[size];
        big[size - 1] = 7;
        int odd = 0;
        for (int i = 0; i < count; i++) {
            int[] garbage = new int[1 + i % 7];
            garbage[0] = i;
            odd += garbage[0] & 1;
            sink = garbage;
        }
        sink = null;
        return big[size - 1] + odd;
    }

    /**
     * Keeps one byte[] of {@code size} bytes alive and calls System.gc(), then fills 1,000 small arrays and calls it
     * again. When the array fitted its chunk exactly, GC.fixHeap wrote a size-0 free-chunk header past it and the
     * collection hung. Returns the array's last byte plus 1,000.
     */
    @Export(name = "heap_big_then_gc")
    public static int bigThenGc(int size) {
        big = new byte[size];
        big[size - 1] = 5;
        System.gc();
        Object[] small = new Object[1000];
        for (int i = 0; i < small.length; i++) {
            small[i] = new int[i % 3];
        }
        sink = small;
        System.gc();
        sink = null;
        return big[size - 1] + small.length;
    }

    /**
     * {@code count} allocations of mixed sizes (mostly 0..63 bytes, every 10th 256..1279, every 100th 4 KiB..64 KiB)
     * of which a ring of {@code ring} stays alive, with System.gc() every {@code gcEvery} allocations (0 = never).
     * Returns a checksum over the live ring.
     */
    @Export(name = "heap_mixed_churn")
    public static long mixedChurn(int count, int ring, int gcEvery) {
        Object[] keep = new Object[ring];
        live.add(keep);
        long sum = 0;
        int x = 12345;
        for (int i = 0; i < count; i++) {
            x = x * 1103515245 + 12345;
            int r = (x >>> 8) & 0xffff;
            int size = r % 100 == 0 ? 4096 + r % 60000 : r % 10 == 0 ? 256 + r % 1024 : r % 64;
            byte[] bytes = new byte[size];
            if (size > 0) {
                bytes[0] = (byte) i;
                bytes[size - 1] = (byte) i;
            }
            keep[(r >>> 3) % ring] = (r & 1) == 0 ? bytes : new int[r % 5];
            if (gcEvery > 0 && i % gcEvery == 0) {
                System.gc();
            }
        }
        for (Object item : keep) {
            if (item instanceof byte[]) {
                byte[] bytes = (byte[]) item;
                sum += bytes.length;
                if (bytes.length > 0 && bytes[0] != bytes[bytes.length - 1]) {
                    return -1; // a moved or overwritten array
                }
            } else if (item != null) {
                sum += 1000 + ((int[]) item).length;
            }
        }
        live.remove(keep);
        return sum;
    }

    /**
     * How many entries of the static-roots table, as the GC reads it, are not field addresses (below the data
     * segment's start at 256). TeaVM's own layout made the first entry 0 and hid the last field.
     */
    @Export(name = "heap_bad_static_roots")
    public static int badStaticRoots() {
        Address table = AilbGcFix.staticGcRoots();
        int count = table.getInt();
        int bad = 0;
        for (int i = 1; i <= count; i++) {
            if (table.add(4 * i).getInt() < 256) {
                bad++;
            }
        }
        return count == 0 ? -1 : bad;
    }

    /**
     * Grows the heap by about {@code grow} bytes (then frees them), places an old 64 KiB array and an old 16-byte array
     * that ends exactly at the heap's last byte, writes {@code stale} into the padding after the GC's region and card
     * tables (what a heap growth leaves there), and churns through young collections. TeaVM's
     * calculateRelocationTargets skipped the run of old regions at the heap's end without stopping at the table's end,
     * took the padding for regions and walked an "object" outside the heap: out-of-bounds trap. Returns 16 (the
     * arrays' marker bytes), or a negative number if the heap could not be laid out so.
     */
    @Export(name = "heap_old_objects_to_the_end")
    public static int oldObjectsToTheEnd(int grow, int stale) {
        if (grow > 0) {
            big = new byte[grow];
            big = null;
        }
        System.gc();
        while (GcInspector.freeChunksLeft() > 1) {
            int left = GcInspector.currentChunkLeft();
            garbage(left > 64 ? left - 32 : 16);
        }
        int bodySize = 64 << 10;
        int left = GcInspector.currentChunkLeft();
        if (left < 2 * bodySize) {
            return -1;
        }
        garbage(left - bodySize - 16);
        byte[] body = new byte[bodySize - 12];
        body[0] = 3;
        body[body.length - 1] = 4;
        // 16 bytes left in the last chunk: this young collection keeps body (on the stack) in place, before those 16.
        garbage(16);
        oldBody = body;
        byte[] tail = fillUpToTheHeapEnd();
        if (tail == null) {
            return -2;
        }
        tail[0] = 9;
        oldTail = tail;
        // The heap is full: this young collection keeps tail (on the stack) in place; body and tail are old now.
        garbage(16);
        if (GcInspector.address(tail) + 16 != GcInspector.heapEnd() || GcInspector.heapBytes() % 1024 == 0) {
            return -3;
        }
        GcInspector.fillPastRegionTables((byte) stale);
        for (int i = 0; i < 100_000; i++) {
            garbage(112);
        }
        return body[0] + body[body.length - 1] + tail[0];
    }

    /** Allocates garbage through every free chunk until a 16-byte array takes the heap's last 16 bytes. */
    private static byte[] fillUpToTheHeapEnd() {
        int end = GcInspector.heapEnd();
        while (GcInspector.freeChunksLeft() > 0 && GcInspector.heapEnd() == end) {
            int left = GcInspector.currentChunkLeft();
            if (left > 64) {
                garbage(left - 32);
            } else {
                byte[] piece = new byte[4];
                if (GcInspector.address(piece) + 16 == end) {
                    return piece;
                }
            }
        }
        return null;
    }

    /** Allocates one dead array of {@code objectSize} bytes (12-byte header included). */
    private static int garbage(int objectSize) {
        byte[] bytes = new byte[objectSize - 12];
        bytes[0] = 1;
        return bytes.length;
    }

    private static final class Node {
        Node next;
        int value;
    }
}
