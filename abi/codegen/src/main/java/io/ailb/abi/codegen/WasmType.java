package io.ailb.abi.codegen;

/** The Wasm value types the ABI uses, with their Java and Chicory counterparts. */
public enum WasmType {
    I32("i32", "int", "I32"),
    I64("i64", "long", "I64"),
    F64("f64", "double", "F64");

    private final String wasmName;
    private final String javaType;
    private final String valType;

    WasmType(String wasmName, String javaType, String valType) {
        this.wasmName = wasmName;
        this.javaType = javaType;
        this.valType = valType;
    }

    /** The spec's spelling: {@code i32}, {@code i64}, {@code f64}. */
    public String wasmName() {
        return wasmName;
    }

    /** The Java primitive carrying the value. */
    public String javaType() {
        return javaType;
    }

    /** The constant of {@code com.dylibso.chicory.wasm.types.ValType}. */
    public String valType() {
        return valType;
    }

    /** Returns the type spelled {@code name}, or null if the ABI does not use it. */
    public static WasmType fromWasmName(String name) {
        for (WasmType type : values()) {
            if (type.wasmName.equals(name)) {
                return type;
            }
        }
        return null;
    }
}
