package io.ailb.abi.codegen;

import java.util.List;

/**
 * The ABI as read from {@code abi/spec/proxy-wasm-abi.json}: enums, host imports, guest exports and the WASI
 * functions the host links. Built and validated by {@link SpecReader}; lists keep the spec's order.
 */
public record AbiSpec(
        String name,
        String abiVersionExport,
        List<EnumType> enums,
        List<Function> imports,
        List<Function> exports,
        List<Function> wasiImports) {

    public AbiSpec {
        enums = List.copyOf(enums);
        imports = List.copyOf(imports);
        exports = List.copyOf(exports);
        wasiImports = List.copyOf(wasiImports);
    }

    /** A named group of integer constants. */
    public record EnumType(String name, String doc, List<EnumValue> values) {
        public EnumType {
            values = List.copyOf(values);
        }
    }

    /** One constant of an {@link EnumType}; {@code doc} may be empty. */
    public record EnumValue(String name, int value, String doc) {}

    /** One parameter of a Wasm function. */
    public record Param(String name, WasmType type) {}

    /**
     * A Wasm function: an import (with its module) or an export (module empty). {@code defaultResult} is what a caller
     * assumes when an export is absent; it is null exactly when the function returns nothing. {@code doc} may be empty
     * for WASI imports.
     */
    public record Function(
            String module,
            String name,
            String doc,
            boolean higress,
            boolean required,
            List<Param> params,
            WasmType result,
            Number defaultResult) {

        public Function {
            params = List.copyOf(params);
        }

        /** The Java method name: {@code proxy_get_header_map_value} → {@code proxyGetHeaderMapValue}. */
        public String javaName() {
            return Names.lowerCamel(name);
        }

        /** {@code module.name}, as hosts report missing imports. */
        public String qualifiedName() {
            return module + "." + name;
        }
    }
}
