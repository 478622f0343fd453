package io.ailb.proxywasm.internal;

import io.ailb.proxywasm.RootContextFactory;
import io.ailb.proxywasm.bindings.ProxyWasmExports;

/** The VM-wide state of the SDK: the boundary in use and the dispatcher the exports call into. */
public final class Vm {
    private static Abi abi;
    private static Dispatcher dispatcher;

    private Vm() {}

    /** The boundary; the real host unless a test installed another one. */
    public static Abi abi() {
        if (abi == null) {
            abi = new WasmAbi();
        }
        return abi;
    }

    /** Replaces the boundary (JVM tests); takes effect for dispatchers started afterwards. */
    public static void install(Abi replacement) {
        abi = replacement;
    }

    /** Creates the dispatcher for this plugin and points the Wasm exports at it. */
    public static Dispatcher start(RootContextFactory factory) {
        dispatcher = new Dispatcher(abi(), factory);
        ProxyWasmExports.callbacks = dispatcher;
        return dispatcher;
    }

    public static Dispatcher dispatcher() {
        if (dispatcher == null) {
            throw new IllegalStateException("no plugin registered: call ProxyWasm.setRootContext from main");
        }
        return dispatcher;
    }
}
