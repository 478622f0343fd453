// Generated from abi/spec/proxy-wasm-abi.json by io.ailb.abi.codegen.AbiGenerator. Do not edit.
package io.ailb.proxywasm.bindings;

import org.teavm.interop.Export;

/** Wasm entry points of mini ABI; each delegates to {@link #callbacks}. */
public final class ProxyWasmExports {
    /** Where callbacks go; while it is null every export returns the spec's default result. */
    public static GuestCallbacks callbacks;

    private ProxyWasmExports() {
    }

    /** ABI version marker; the host only checks that it is exported and never calls it. */
    @Export(name = "proxy_abi_version_9_9_9")
    public static void proxyAbiVersion999() {
    }

    /**
     * Headers arrived.
     * <p>Result assumed when the export is absent: 0.
     */
    @Export(name = "proxy_on_request_headers")
    public static int proxyOnRequestHeaders(int contextId, int headers, int endOfStream) {
        GuestCallbacks current = callbacks;
        if (current == null) {
            return 0;
        }
        return current.proxyOnRequestHeaders(contextId, headers, endOfStream);
    }

    /** Context removed. */
    @Export(name = "proxy_on_delete")
    public static void proxyOnDelete(int contextId) {
        GuestCallbacks current = callbacks;
        if (current != null) {
            current.proxyOnDelete(contextId);
        }
    }

    /**
     * Returns a weight.
     * <p>Higress extension.
     * <p>Required: the host refuses a module without this export.
     * <p>Result assumed when the export is absent: 1.5.
     */
    @Export(name = "proxy_on_weight")
    public static double proxyOnWeight(long bias) {
        GuestCallbacks current = callbacks;
        if (current == null) {
            return 1.5;
        }
        return current.proxyOnWeight(bias);
    }
}
