package io.ailb.teavm.guest;

import org.teavm.interop.Export;
import org.teavm.interop.Import;

/** A guest importing a function no proxy-wasm host provides; BuildWasm must refuse it. */
public final class ForbiddenImportGuest {
    private ForbiddenImportGuest() {}

    @Import(module = "foo", name = "bar")
    private static native int bar(int value);

    public static void main(String[] args) {}

    @Export(name = "proxy_abi_version_0_2_100")
    public static void abiVersion() {}

    @Export(name = "proxy_on_memory_allocate")
    public static int allocate(int size) {
        return bar(size);
    }
}
