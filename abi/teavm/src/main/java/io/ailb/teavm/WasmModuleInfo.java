package io.ailb.teavm;

import com.dylibso.chicory.wasm.Parser;
import com.dylibso.chicory.wasm.WasmModule;
import com.dylibso.chicory.wasm.types.Export;
import com.dylibso.chicory.wasm.types.ExternalType;
import com.dylibso.chicory.wasm.types.FunctionImport;
import com.dylibso.chicory.wasm.types.FunctionType;
import com.dylibso.chicory.wasm.types.Import;
import com.dylibso.chicory.wasm.types.ValType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The imports and exports of a written module, with function signatures in the spec's vocabulary. */
record WasmModuleInfo(Path path, long sizeBytes, List<ImportEntry> imports, Map<String, ExportEntry> exports) {

    /** @param signature null unless the import is a function */
    record ImportEntry(String module, String name, ExternalType kind, WasmSignature signature) {
        String qualifiedName() {
            return module + "." + name;
        }
    }

    /** @param signature null unless the export is a function */
    record ExportEntry(String name, ExternalType kind, WasmSignature signature) {}

    static WasmModuleInfo read(Path path) throws IOException {
        WasmModule module = Parser.parse(path);
        List<ImportEntry> imports = new ArrayList<>();
        List<FunctionType> importedFunctionTypes = new ArrayList<>();
        for (int i = 0; i < module.importSection().importCount(); i++) {
            Import entry = module.importSection().getImport(i);
            WasmSignature signature = null;
            if (entry instanceof FunctionImport function) {
                FunctionType type = module.typeSection().getType(function.typeIndex());
                importedFunctionTypes.add(type);
                signature = signature(type);
            }
            imports.add(new ImportEntry(entry.module(), entry.name(), entry.importType(), signature));
        }
        Map<String, ExportEntry> exports = new LinkedHashMap<>();
        for (int i = 0; i < module.exportSection().exportCount(); i++) {
            Export export = module.exportSection().getExport(i);
            WasmSignature signature = null;
            if (export.exportType() == ExternalType.FUNCTION) {
                int index = export.index();
                FunctionType type = index < importedFunctionTypes.size()
                        ? importedFunctionTypes.get(index)
                        : module.functionSection()
                                .getFunctionType(index - importedFunctionTypes.size(), module.typeSection());
                signature = signature(type);
            }
            exports.put(export.name(), new ExportEntry(export.name(), export.exportType(), signature));
        }
        return new WasmModuleInfo(path, Files.size(path), imports, exports);
    }

    private static WasmSignature signature(FunctionType type) {
        return new WasmSignature(names(type.params()), names(type.returns()));
    }

    private static List<String> names(List<ValType> types) {
        List<String> names = new ArrayList<>();
        for (ValType type : types) {
            names.add(name(type));
        }
        return names;
    }

    private static String name(ValType type) {
        if (type.equals(ValType.I32)) {
            return "i32";
        }
        if (type.equals(ValType.I64)) {
            return "i64";
        }
        if (type.equals(ValType.F32)) {
            return "f32";
        }
        if (type.equals(ValType.F64)) {
            return "f64";
        }
        return type.toString();
    }
}
