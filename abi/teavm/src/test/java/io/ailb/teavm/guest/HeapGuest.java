package io.ailb.teavm.guest;

import java.util.ArrayList;
import java.util.List;
import org.teavm.interop.Address;
import org.teavm.interop.Export;

/**
 * Allocates well past the initial heap, live and garbage, for HeapGrowthTest. Each pattern crashed TeaVM 0.13.1's
 * GC with its default GC storage (heap / 16) before the heap could grow; see README "GC storage".
 */
public final class HeapGuest {
    private static List<Object> live = new ArrayList<>();
    private static Node chain;
    private static Object sink;
    private static byte[] big;

    private HeapGuest() {
    }

    public static void main(String[] args) {
    }

    @Export(name = "proxy_abi_version_0_2_100")
    public static void abiVersion() {
    }

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

    private static final class Node {
        Node next;
        int value;
    }
}
