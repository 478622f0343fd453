// Generated from abi/spec/proxy-wasm-abi.json by io.ailb.abi.codegen.AbiGenerator. Do not edit.
package io.ailb.emulator.bindings;

/**
 * The host functions of mini ABI (module {@code env}); an implementation holds its instance. {@link HostImportTable}
 * links them.
 */
public interface HostImports {
    /** Logs a message. */
    int proxyLog(int level, int messageData, int messageSize);

    /**
     * Takes every Wasm type and returns an f64; this doc is long enough to be wrapped over more than one line of
     * Javadoc.
     * <p>Higress extension.
     */
    double proxyMixTypes(long count, double ratio);

    /** Returns nothing. */
    void proxyNotify();
}
