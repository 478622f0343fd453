package io.ailb.proxywasm.internal;

import java.util.Arrays;
import org.teavm.interop.Address;

/**
 * The guest half of the memory protocol. TeaVM's GC moves objects, so a raw address is only valid while the array
 * behind it is referenced from a local that is live across the host call (TeaVM spills such locals to its shadow stack,
 * which pins them). Buffers the host asks for are remembered here by the address we handed out, so we can find the
 * same array again after the call even if a GC has moved it since.
 */
public final class Memory {
    private static final byte[] EMPTY = new byte[0];
    /** A host call asks for one buffer; a few slots leave room for hosts that ask for more. */
    private static final int PENDING_SLOTS = 8;

    private static final byte[][] PENDING_BUFFERS = new byte[PENDING_SLOTS][];
    private static final int[] PENDING_ADDRESSES = new int[PENDING_SLOTS];
    private static int pendingCount;
    /** Written after each host call so the argument arrays stay live (and thus pinned) across it. */
    private static Object lastArgument;

    private static boolean gcBeforeHostCalls;

    private Memory() {}

    /**
     * {@code proxy_on_memory_allocate}: the host writes into the array right after we return. The array is the only
     * allocation here and its address is taken last: an allocation after it could run a compacting GC that moves the
     * array away from the address the host is about to write to.
     */
    public static int allocate(int size) {
        byte[] buffer = new byte[size];
        int slot = pendingCount < PENDING_SLOTS ? pendingCount++ : PENDING_SLOTS - 1;
        PENDING_BUFFERS[slot] = buffer;
        int address = Address.ofData(buffer).toInt();
        PENDING_ADDRESSES[slot] = address;
        return address;
    }

    /** The pending buffer handed out at {@code address}, forgotten once taken; null when there is none. */
    private static byte[] removePending(int address) {
        for (int i = 0; i < pendingCount; i++) {
            if (PENDING_ADDRESSES[i] == address) {
                byte[] buffer = PENDING_BUFFERS[i];
                pendingCount--;
                PENDING_BUFFERS[i] = PENDING_BUFFERS[pendingCount];
                PENDING_ADDRESSES[i] = PENDING_ADDRESSES[pendingCount];
                PENDING_BUFFERS[pendingCount] = null;
                return buffer;
            }
        }
        return null;
    }

    /** Forgets buffers a previous call left unconsumed; called before each host call that returns a buffer. */
    public static void clearPending() {
        Arrays.fill(PENDING_BUFFERS, null);
        pendingCount = 0;
        lastArgument = null;
    }

    /** The buffer the host filled and reported at {@code address}; copied out of linear memory if it is not ours. */
    public static byte[] take(int address, int size) {
        if (size <= 0) {
            removePending(address);
            return EMPTY;
        }
        byte[] buffer = removePending(address);
        if (buffer != null && buffer.length == size) {
            return buffer;
        }
        if (buffer != null && buffer.length > size) {
            byte[] head = new byte[size];
            System.arraycopy(buffer, 0, head, 0, size);
            return head;
        }
        byte[] copy = new byte[size];
        Address from = Address.fromInt(address);
        for (int i = 0; i < size; i++) {
            copy[i] = from.add(i).getByte();
        }
        return copy;
    }

    public static int address(byte[] data) {
        return Address.ofData(data).toInt();
    }

    public static int address(int[] data) {
        return Address.ofData(data).toInt();
    }

    public static int address(long[] data) {
        return Address.ofData(data).toInt();
    }

    /** A use of an argument array after the host call, so the array is a GC root (and not moved) during it. */
    public static void keep(Object argument) {
        lastArgument = argument;
    }

    /**
     * Test aid (the probe's {@code x-probe-gc}): force a full, compacting GC right before every host call, after its
     * arrays were built, to prove the protocol survives objects moving at the worst moment.
     */
    public static void setGcBeforeHostCalls(boolean enabled) {
        gcBeforeHostCalls = enabled;
    }

    static void beforeHostCall() {
        if (gcBeforeHostCalls) {
            System.gc();
        }
    }
}
