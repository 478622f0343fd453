package io.ailb.emulator;

import com.dylibso.chicory.compiler.MachineFactoryCompiler;
import com.dylibso.chicory.runtime.HostFunction;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.runtime.Machine;
import com.dylibso.chicory.wasm.Parser;
import com.dylibso.chicory.wasm.WasmModule;
import com.dylibso.chicory.wasm.types.Export;
import com.dylibso.chicory.wasm.types.ExportSection;
import com.dylibso.chicory.wasm.types.ExternalType;
import com.dylibso.chicory.wasm.types.FunctionImport;
import com.dylibso.chicory.wasm.types.FunctionType;
import com.dylibso.chicory.wasm.types.Import;
import com.dylibso.chicory.wasm.types.ImportSection;
import io.ailb.emulator.bindings.HostImportTable;
import io.ailb.emulator.bindings.WasiImports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * A proxy-wasm module parsed, link-checked and compiled once (Chicory's runtime compiler); every VM of every
 * {@link Gateway} built from it reuses the compiled code. Loading fails the way Envoy refuses a module: an import the
 * host does not provide, a signature mismatch, no ABI-version export, no allocator.
 */
public final class WasmPlugin {
    /** ABI-version exports cpp-host recognises, newest first. */
    private static final List<String> ABI_VERSIONS = List.of(
            "proxy_abi_version_0_2_100",
            "proxy_abi_version_0_2_1",
            "proxy_abi_version_0_2_0",
            "proxy_abi_version_0_1_0");

    private static final String WASI_MODULE = "wasi_snapshot_preview1";

    private final String name;
    private final WasmModule module;
    private final Function<Instance, Machine> machineFactory;
    private final int sizeBytes;
    private final String abiVersion;
    private final long compileNanos;

    private WasmPlugin(
            String name,
            WasmModule module,
            Function<Instance, Machine> machineFactory,
            int sizeBytes,
            String abiVersion,
            long compileNanos) {
        this.name = name;
        this.module = module;
        this.machineFactory = machineFactory;
        this.sizeBytes = sizeBytes;
        this.abiVersion = abiVersion;
        this.compileNanos = compileNanos;
    }

    /** Reads, checks and compiles {@code wasmFile}. */
    public static WasmPlugin load(Path wasmFile) {
        try {
            return fromBytes(wasmFile.getFileName().toString(), Files.readAllBytes(wasmFile));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + wasmFile, e);
        }
    }

    /**
     * Reads and checks {@code wasmFile} but runs it in Chicory's interpreter: no compile time, far slower calls. For
     * telling a guest bug from a compiler bug.
     */
    public static WasmPlugin loadInterpreted(Path wasmFile) {
        try {
            return fromBytes(wasmFile.getFileName().toString(), Files.readAllBytes(wasmFile), false);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + wasmFile, e);
        }
    }

    /** Checks and compiles a module given as bytes; {@code name} appears in messages. */
    public static WasmPlugin fromBytes(String name, byte[] wasm) {
        return fromBytes(name, wasm, true);
    }

    private static WasmPlugin fromBytes(String name, byte[] wasm, boolean compiled) {
        WasmModule module = Parser.parse(wasm);
        checkImports(name, module);
        Set<String> exports = exportedFunctions(module);
        String abiVersion = ABI_VERSIONS.stream()
                .filter(exports::contains)
                .findFirst()
                .orElseThrow(() -> new EmulatorException(name + ": no proxy-wasm ABI version export (one of "
                        + ABI_VERSIONS + "); Envoy refuses the module"));
        if (!exports.contains("proxy_on_memory_allocate") && !exports.contains("malloc")) {
            throw new EmulatorException(name + ": Wasm module is missing malloc function (proxy_on_memory_allocate)");
        }
        long start = System.nanoTime();
        Function<Instance, Machine> factory = compiled ? MachineFactoryCompiler.compile(module) : null;
        long compileNanos = System.nanoTime() - start;
        return new WasmPlugin(name, module, factory, wasm.length, abiVersion, compileNanos);
    }

    private static void checkImports(String name, WasmModule module) {
        Map<String, FunctionType> env = new HashMap<>();
        for (HostFunction function : HostImportTable.functions(null)) {
            env.put(function.name(), function.functionType());
        }
        Set<String> wasi = new HashSet<>(WasiImports.NAMES);
        ImportSection imports = module.importSection();
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < imports.importCount(); i++) {
            Import imported = imports.getImport(i);
            String qualified = imported.module() + "." + imported.name();
            if (imported.importType() != ExternalType.FUNCTION) {
                problems.add(
                        "missing import: " + qualified + " (" + imported.importType() + " imports are not provided)");
            } else if ("env".equals(imported.module()) && env.containsKey(imported.name())) {
                FunctionType wanted = module.typeSection().getType(((FunctionImport) imported).typeIndex());
                FunctionType provided = env.get(imported.name());
                if (!wanted.typesMatch(provided)) {
                    problems.add(
                            "signature mismatch: " + qualified + " is " + wanted + ", the host provides " + provided);
                }
            } else if (!(WASI_MODULE.equals(imported.module()) && wasi.contains(qualified))) {
                problems.add("missing import: " + qualified);
            }
        }
        if (!problems.isEmpty()) {
            throw new EmulatorException(name + ": Failed to load Wasm module due to " + String.join("; ", problems));
        }
    }

    private static Set<String> exportedFunctions(WasmModule module) {
        Set<String> names = new HashSet<>();
        ExportSection section = module.exportSection();
        for (int i = 0; i < section.exportCount(); i++) {
            Export export = section.getExport(i);
            if (export.exportType() == ExternalType.FUNCTION) {
                names.add(export.name());
            }
        }
        return names;
    }

    public String name() {
        return name;
    }

    /** The module size in bytes. */
    public int sizeBytes() {
        return sizeBytes;
    }

    /** The ABI-version export the module declares, e.g. {@code proxy_abi_version_0_2_100}. */
    public String abiVersion() {
        return abiVersion;
    }

    /** Whether {@code StopIteration} from request headers survives (only ABI 0.2.100, see the Higress fork). */
    boolean keepsRequestHeaderStopIteration() {
        return "proxy_abi_version_0_2_100".equals(abiVersion);
    }

    /** How long Chicory's runtime compiler took, once, for this module. */
    public long compileNanos() {
        return compileNanos;
    }

    WasmModule module() {
        return module;
    }

    Function<Instance, Machine> machineFactory() {
        return machineFactory;
    }
}
