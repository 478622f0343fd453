package io.ailb.emulator;

import com.dylibso.chicory.runtime.Memory;
import io.ailb.emulator.bindings.GuestExports;
import io.ailb.emulator.bindings.WasmResult;
import java.nio.charset.StandardCharsets;

/**
 * The guest's linear memory as host calls use it: pointers and sizes come from the guest and are checked, bytes handed
 * back go into memory the guest allocates with {@code proxy_on_memory_allocate}.
 */
final class GuestMemory {
    private final Memory memory;
    private final GuestExports exports;

    /** A guest pointer or size outside its memory; the host call answers {@code INVALID_MEMORY_ACCESS}. */
    static final class InvalidMemory extends RuntimeException {
        InvalidMemory(String message) {
            super(message, null, false, false);
        }
    }

    GuestMemory(Memory memory, GuestExports exports) {
        this.memory = memory;
        this.exports = exports;
    }

    byte[] bytes(int pointer, int size) {
        check(pointer, size);
        return size == 0 ? new byte[0] : memory.readBytes(pointer, size);
    }

    String text(int pointer, int size) {
        return new String(bytes(pointer, size), StandardCharsets.UTF_8);
    }

    void check(int pointer, int size) {
        long end = (pointer & 0xFFFFFFFFL) + (size & 0xFFFFFFFFL);
        if (pointer < 0 || size < 0 || end > sizeBytes()) {
            throw new InvalidMemory("pointer " + pointer + " size " + size);
        }
    }

    void writeI32(int pointer, int value) {
        check(pointer, 4);
        memory.writeI32(pointer, value);
    }

    void writeI64(int pointer, long value) {
        check(pointer, 8);
        memory.writeLong(pointer, value);
    }

    /** Copies {@code data} into guest-allocated memory; empty data is reported as pointer 0, size 0 (cpp-host). */
    int writeOut(byte[] data, int pointerOut, int sizeOut) {
        int pointer = 0;
        if (data.length > 0) {
            pointer = exports.proxyOnMemoryAllocate(data.length);
            if (pointer == 0) {
                return WasmResult.INVALID_MEMORY_ACCESS;
            }
            check(pointer, data.length);
            memory.write(pointer, data);
        }
        writeI32(pointerOut, pointer);
        writeI32(sizeOut, data.length);
        return WasmResult.OK;
    }

    /** The size of the linear memory now: it only grows, so it bounds the guest's peak heap. */
    long sizeBytes() {
        return (long) memory.pages() * Memory.PAGE_SIZE;
    }
}
