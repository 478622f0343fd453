package io.ailb.proxywasm.internal;

import org.teavm.backend.wasm.runtime.WasiBuffer;
import org.teavm.interop.Address;

/**
 * Where host calls write their out-parameters (returned pointer, size, token, cas…): TeaVM's scratch buffer for WASI
 * out-parameters, which lies outside the GC heap.
 *
 * <p>A host writes these after calling back into {@code proxy_on_memory_allocate}; that allocation may run a GC. An
 * {@code int[]} known to the guest only as an address passed to the import is no GC root then: the GC freed (and
 * reused) it, and the host's write corrupted whatever lived there — VMs died after a few dozen requests. Memory the
 * GC does not manage cannot be freed or moved. Read every slot right after its call: the next host call reuses them.
 */
final class OutParams {
    private OutParams() {}

    /** The address of 4-byte slot {@code index} (a 64-bit value takes slots 0 and 1). */
    static int address(int index) {
        return WasiBuffer.getBuffer().toInt() + 4 * index;
    }

    static int intAt(int index) {
        return Address.fromInt(address(index)).getInt();
    }

    static long longAt(int index) {
        return Address.fromInt(address(index)).getLong();
    }
}
