// Generated from abi/spec/proxy-wasm-abi.json by io.ailb.abi.codegen.AbiGenerator. Do not edit.
package io.ailb.emulator.bindings;

import java.util.List;

/** The WASI functions the proxy-wasm host links (cpp-host {@code FOR_ALL_WASI_FUNCTIONS}). */
public final class WasiImports {
    /** {@code module.name} of each, in spec order. */
    public static final List<String> NAMES = List.of(
            "wasi_snapshot_preview1.fd_write",
            "wasi_snapshot_preview1.proc_exit");

    private WasiImports() {
    }
}
