package io.ailb.proxywasm;

import io.ailb.proxywasm.internal.Vm;

/** Entry point of a plugin: call {@link #setRootContext} from {@code main} and nothing else there. */
public final class ProxyWasm {
    private ProxyWasm() {}

    /**
     * Registers the plugin. Envoy runs {@code main} in a restricted phase where host calls other than logging fail,
     * so {@code main} must do only this; the host then creates the root context and calls
     * {@link RootContext#onVmStart} and {@link RootContext#onConfigure}.
     */
    public static void setRootContext(RootContextFactory factory) {
        if (factory == null) {
            throw new IllegalArgumentException("factory must not be null");
        }
        Vm.start(factory);
    }
}
