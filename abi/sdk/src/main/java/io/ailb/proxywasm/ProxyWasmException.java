package io.ailb.proxywasm;

import io.ailb.proxywasm.bindings.WasmResult;

/** A host call answered with a status the SDK does not turn into a value. */
public final class ProxyWasmException extends RuntimeException {
    private final String call;
    private final int result;

    public ProxyWasmException(String call, int result) {
        super(call + " failed: " + WasmResult.nameOf(result));
        this.call = call;
        this.result = result;
    }

    /** The ABI name of the host call, e.g. {@code proxy_http_call}. */
    public String call() {
        return call;
    }

    /** The {@link WasmResult} code the host returned. */
    public int result() {
        return result;
    }

    /** The {@link WasmResult} name, e.g. {@code BAD_ARGUMENT}. */
    public String resultName() {
        return WasmResult.nameOf(result);
    }
}
