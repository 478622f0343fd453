package io.ailb.teavm;

import com.dylibso.chicory.wasm.types.ExternalType;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Rejects a module an Envoy/Higress host would refuse to load or run: imports other than the spec's {@code env}
 * functions and proxy-wasm-cpp-host's WASI list, signatures that differ from the spec, and missing mandatory exports.
 */
final class ModuleCheck {
    static final String MEMORY_EXPORT = "memory";
    static final String ALLOCATE_EXPORT = "proxy_on_memory_allocate";

    private ModuleCheck() {
    }

    /** @return one message per kind of problem, empty when the module is fine */
    static List<String> check(WasmModuleInfo module, AbiSpec spec) {
        List<String> errors = new ArrayList<>();
        TreeSet<String> unlinkable = new TreeSet<>();
        for (WasmModuleInfo.ImportEntry entry : module.imports()) {
            WasmSignature expected = spec.linkableImports().get(entry.qualifiedName());
            if (expected == null || entry.kind() != ExternalType.FUNCTION) {
                unlinkable.add(entry.qualifiedName());
            } else if (!expected.equals(entry.signature())) {
                errors.add("import " + entry.qualifiedName() + " has signature " + entry.signature()
                        + ", the spec says " + expected);
            }
        }
        if (!unlinkable.isEmpty()) {
            errors.add(0, "imports an Envoy/Higress host cannot link: " + unlinkable);
        }

        WasmModuleInfo.ExportEntry memory = module.exports().get(MEMORY_EXPORT);
        if (memory == null || memory.kind() != ExternalType.MEMORY) {
            errors.add("does not export its linear memory as \"" + MEMORY_EXPORT + "\"");
        }
        TreeSet<String> missing = new TreeSet<>();
        for (String name : mandatoryFunctionExports(spec)) {
            WasmModuleInfo.ExportEntry export = module.exports().get(name);
            if (export == null || export.kind() != ExternalType.FUNCTION) {
                missing.add(name);
            }
        }
        if (!missing.isEmpty()) {
            errors.add("lacks exports a proxy-wasm host requires: " + missing);
        }
        for (WasmModuleInfo.ExportEntry export : module.exports().values()) {
            WasmSignature expected = spec.exports().get(export.name());
            if (expected != null && !expected.equals(export.signature())) {
                errors.add("export " + export.name() + " has signature " + export.signature()
                        + ", the spec says " + expected);
            }
        }
        return errors;
    }

    private static List<String> mandatoryFunctionExports(AbiSpec spec) {
        List<String> names = new ArrayList<>();
        names.add(ALLOCATE_EXPORT);
        names.add(spec.abiVersionExport());
        names.addAll(spec.requiredExports());
        return names;
    }
}
