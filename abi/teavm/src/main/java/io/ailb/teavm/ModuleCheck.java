package io.ailb.teavm;

import com.dylibso.chicory.wasm.types.ExternalType;
import io.ailb.abi.codegen.AbiSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Rejects a module an Envoy/Higress host would refuse to load or run: imports other than the spec's {@code env}
 * functions and proxy-wasm-cpp-host's WASI list, signatures that differ from the spec, and missing mandatory exports.
 */
final class ModuleCheck {
    static final String MEMORY_EXPORT = "memory";
    static final String ALLOCATE_EXPORT = "proxy_on_memory_allocate";

    private ModuleCheck() {}

    /** @return one message per kind of problem, empty when the module is fine */
    static List<String> check(WasmModuleInfo module, AbiSpec spec) {
        List<String> errors = new ArrayList<>();
        Map<String, WasmSignature> linkable = linkableImports(spec);
        TreeSet<String> unlinkable = new TreeSet<>();
        for (WasmModuleInfo.ImportEntry entry : module.imports()) {
            WasmSignature expected = linkable.get(entry.qualifiedName());
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
        for (String name : mandatoryExports(spec)) {
            WasmModuleInfo.ExportEntry export = module.exports().get(name);
            if (export == null || export.kind() != ExternalType.FUNCTION) {
                missing.add(name);
            }
        }
        if (!missing.isEmpty()) {
            errors.add("lacks exports a proxy-wasm host requires: " + missing);
        }
        Map<String, WasmSignature> specExports = new LinkedHashMap<>();
        for (AbiSpec.Function export : spec.exports()) {
            specExports.put(export.name(), WasmSignature.of(export));
        }
        for (WasmModuleInfo.ExportEntry export : module.exports().values()) {
            WasmSignature expected = specExports.get(export.name());
            if (expected != null && !expected.equals(export.signature())) {
                errors.add("export " + export.name() + " has signature " + export.signature() + ", the spec says "
                        + expected);
            }
        }
        return errors;
    }

    /** "module.name" → signature of every function an Envoy/Higress host links: the spec's imports and WASI list. */
    static Map<String, WasmSignature> linkableImports(AbiSpec spec) {
        Map<String, WasmSignature> linkable = new LinkedHashMap<>();
        for (AbiSpec.Function function : spec.imports()) {
            linkable.put(function.qualifiedName(), WasmSignature.of(function));
        }
        for (AbiSpec.Function function : spec.wasiImports()) {
            linkable.put(function.qualifiedName(), WasmSignature.of(function));
        }
        return linkable;
    }

    /** The allocator, the ABI-version marker and every export the spec marks required. */
    static Set<String> mandatoryExports(AbiSpec spec) {
        Set<String> names = new TreeSet<>();
        names.add(ALLOCATE_EXPORT);
        names.add(spec.abiVersionExport());
        for (AbiSpec.Function export : spec.exports()) {
            if (export.required()) {
                names.add(export.name());
            }
        }
        return names;
    }
}
