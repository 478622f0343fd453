package io.ailb.abi.codegen;

/** Which side of the ABI the bindings are for, and the package they go to. */
public enum Side {
    /** The Wasm module: TeaVM {@code @Import} natives and {@code @Export} entry points. */
    GUEST("io.ailb.proxywasm.bindings"),
    /** The Chicory host: the import table and typed export handles. */
    HOST("io.ailb.emulator.bindings");

    private final String packageName;

    Side(String packageName) {
        this.packageName = packageName;
    }

    public String packageName() {
        return packageName;
    }

    /** The directory of the package below a source root, with {@code /}. */
    public String packagePath() {
        return packageName.replace('.', '/');
    }
}
