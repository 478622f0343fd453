// Generated from abi/spec/proxy-wasm-abi.json by io.ailb.abi.codegen.AbiGenerator. Do not edit.
package io.ailb.proxywasm.bindings;

import org.teavm.interop.Import;

/** Host functions of mini ABI, imported by the module (module {@code env}). */
public final class ProxyWasmImports {
    private ProxyWasmImports() {
    }

    /** Logs a message. */
    @Import(module = "env", name = "proxy_log")
    public static native int proxyLog(int level, int messageData, int messageSize);

    /**
     * Takes every Wasm type and returns an f64; this doc is long enough to be wrapped over more than one line of
     * Javadoc.
     * <p>Higress extension.
     */
    @Import(module = "env", name = "proxy_mix_types")
    public static native double proxyMixTypes(long count, double ratio);

    /** Returns nothing. */
    @Import(module = "env", name = "proxy_notify")
    public static native void proxyNotify();
}
