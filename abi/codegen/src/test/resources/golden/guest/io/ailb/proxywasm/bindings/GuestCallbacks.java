// Generated from abi/spec/proxy-wasm-abi.json by io.ailb.abi.codegen.AbiGenerator. Do not edit.
package io.ailb.proxywasm.bindings;

/** Receives every callback of mini ABI; installed as {@link ProxyWasmExports#callbacks}. */
public interface GuestCallbacks {
    /**
     * Headers arrived.
     * <p>Result assumed when the export is absent: 0.
     */
    int proxyOnRequestHeaders(int contextId, int headers, int endOfStream);

    /** Context removed. */
    void proxyOnDelete(int contextId);

    /**
     * Returns a weight.
     * <p>Higress extension.
     * <p>Required: the host refuses a module without this export.
     * <p>Result assumed when the export is absent: 1.5.
     */
    double proxyOnWeight(long bias);
}
