package io.ailb.teavm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.dylibso.chicory.wasm.types.ExternalType;
import io.ailb.abi.codegen.AbiSpec;
import io.ailb.abi.codegen.SpecException;
import io.ailb.abi.codegen.SpecReader;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ModuleCheckTest {
    private static final WasmSignature I32_TO_I32 = new WasmSignature(List.of("i32"), List.of("i32"));
    private static final WasmSignature LOG = new WasmSignature(List.of("i32", "i32", "i32"), List.of("i32"));
    private static final WasmSignature VOID = new WasmSignature(List.of(), List.of());

    private final AbiSpec spec = loadSpec();

    @Test
    void acceptsAModuleWithSpecImportsAndMandatoryExports() {
        assertEquals(List.of(), ModuleCheck.check(module(List.of(envLog(LOG)), mandatoryExports()), spec));
    }

    @Test
    void listsEveryUnlinkableImportSorted() {
        List<WasmModuleInfo.ImportEntry> imports = List.of(
                new WasmModuleInfo.ImportEntry("teavmMath", "sin", ExternalType.FUNCTION, I32_TO_I32),
                new WasmModuleInfo.ImportEntry("teavm", "nanoTime", ExternalType.FUNCTION, VOID),
                new WasmModuleInfo.ImportEntry("env", "proxy_unknown", ExternalType.FUNCTION, VOID),
                new WasmModuleInfo.ImportEntry("env", "memory", ExternalType.MEMORY, null));
        assertEquals(
                List.of("imports an Envoy/Higress host cannot link: "
                        + "[env.memory, env.proxy_unknown, teavm.nanoTime, teavmMath.sin]"),
                ModuleCheck.check(module(imports, mandatoryExports()), spec));
    }

    @Test
    void rejectsAnImportWhoseSignatureDiffersFromTheSpec() {
        assertEquals(
                List.of("import env.proxy_log has signature (i32)->(i32), the spec says (i32,i32,i32)->(i32)"),
                ModuleCheck.check(module(List.of(envLog(I32_TO_I32)), mandatoryExports()), spec));
    }

    @Test
    void rejectsMissingMemoryAllocatorAndAbiVersionExports() {
        assertEquals(
                List.of(
                        "does not export its linear memory as \"memory\"",
                        "lacks exports a proxy-wasm host requires: [proxy_abi_version_0_2_100, proxy_on_memory_allocate]"),
                ModuleCheck.check(module(List.of(), Map.of()), spec));
    }

    @Test
    void rejectsAnExportWhoseSignatureDiffersFromTheSpec() {
        Map<String, WasmModuleInfo.ExportEntry> exports = mandatoryExports();
        exports.put(
                "proxy_on_request_headers",
                new WasmModuleInfo.ExportEntry("proxy_on_request_headers", ExternalType.FUNCTION, I32_TO_I32));
        assertEquals(
                List.of("export proxy_on_request_headers has signature (i32)->(i32), "
                        + "the spec says (i32,i32,i32)->(i32)"),
                ModuleCheck.check(module(List.of(), exports), spec));
    }

    @Test
    void linksTheSpecsEnvAndWasiImportsAndRequiresItsMandatoryExports() {
        Map<String, WasmSignature> linkable = ModuleCheck.linkableImports(spec);
        assertEquals(LOG, linkable.get("env.proxy_log"));
        assertEquals(
                new WasmSignature(List.of("i32", "i64", "i32"), List.of("i32")),
                linkable.get("wasi_snapshot_preview1.clock_time_get"));
        assertEquals(new WasmSignature(List.of("i32"), List.of()), linkable.get("wasi_snapshot_preview1.proc_exit"));
        assertEquals(
                Set.of("proxy_on_memory_allocate", "proxy_abi_version_0_2_100"), ModuleCheck.mandatoryExports(spec));
    }

    private static AbiSpec loadSpec() {
        try {
            return SpecReader.read(Path.of("src/test/resources/test-abi.json"));
        } catch (SpecException e) {
            throw new IllegalStateException(e);
        }
    }

    private static WasmModuleInfo.ImportEntry envLog(WasmSignature signature) {
        return new WasmModuleInfo.ImportEntry("env", "proxy_log", ExternalType.FUNCTION, signature);
    }

    private static Map<String, WasmModuleInfo.ExportEntry> mandatoryExports() {
        Map<String, WasmModuleInfo.ExportEntry> exports = new LinkedHashMap<>();
        exports.put("memory", new WasmModuleInfo.ExportEntry("memory", ExternalType.MEMORY, null));
        exports.put(
                "proxy_on_memory_allocate",
                new WasmModuleInfo.ExportEntry("proxy_on_memory_allocate", ExternalType.FUNCTION, I32_TO_I32));
        exports.put(
                "proxy_abi_version_0_2_100",
                new WasmModuleInfo.ExportEntry("proxy_abi_version_0_2_100", ExternalType.FUNCTION, VOID));
        return exports;
    }

    private static WasmModuleInfo module(
            List<WasmModuleInfo.ImportEntry> imports, Map<String, WasmModuleInfo.ExportEntry> exports) {
        return new WasmModuleInfo(Path.of("test.wasm"), 0, imports, exports);
    }
}
