package io.ailb.independent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Our modules in Node's V8, the engine Envoy uses by default: no emulator of ours involved, every import a stub.
 * Node runs once per module; each test asserts one fact from that run.
 */
@Timeout(60)
class V8LoadTest {
    private static final Map<Path, V8Report> REPORTS = new ConcurrentHashMap<>();
    private static NodeV8 node;

    @BeforeAll
    static void findNode() {
        node = NodeV8.find();
    }

    static Stream<Arguments> modules() {
        return Stream.of(
                Arguments.of("standard-example.wasm", WasmFiles.STANDARD_EXAMPLE),
                Arguments.of("probe.wasm", WasmFiles.PROBE),
                Arguments.of("ai-load-balancer.wasm", WasmFiles.PRODUCT));
    }

    private static V8Report report(String module) {
        // Assumed per test (not in @BeforeAll) so each skip is reported with its reason.
        Assumptions.assumeTrue(node != null, "node is not on PATH (or -Dnode.executable is wrong): V8 checks skipped");
        Path wasm = WasmFiles.require(module);
        return REPORTS.computeIfAbsent(wasm, w -> {
            try {
                return node.load(w, WasmFiles.require(WasmFiles.ABI_SPEC));
            } catch (Exception e) {
                throw new AssertionError("running node on " + w + " failed", e);
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modules")
    void v8ValidatesAndCompilesTheModule(String name, String module) {
        V8Report report = report(module);
        assertEquals(Optional.of("true"), report.first("validate"), report.describe());
        assertEquals(Optional.of("ok"), report.first("compile"), report.describe());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modules")
    void moduleImportsOnlyFromEnvAndWasiPreview1(String name, String module) {
        V8Report report = report(module);
        List<String> imports = report.all("import");
        assertTrue(!imports.isEmpty(), report.describe());
        for (String entry : imports) {
            String qualified = entry.substring(0, entry.indexOf(' '));
            assertTrue(
                    qualified.startsWith("env.") || qualified.startsWith("wasi_snapshot_preview1."),
                    "unexpected import module in " + entry + "\n" + report.describe());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modules")
    void everyImportIsOneTheHostLinksWithTheSameSignature(String name, String module) {
        V8Report report = report(module);
        Assumptions.assumeTrue(
                report.first("types").equals(Optional.of("known")),
                "this node cannot reflect Wasm function types (--experimental-wasm-type-reflection)");
        List<String> checks = report.all("import-check");
        assertEquals(report.all("import").size(), checks.size(), report.describe());
        for (String check : checks) {
            assertTrue(check.endsWith(" ok"), "Envoy would refuse to link: " + check + "\n" + report.describe());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modules")
    void everyProxyWasmExportHasTheSignatureTheHostCalls(String name, String module) {
        V8Report report = report(module);
        Assumptions.assumeTrue(
                report.first("types").equals(Optional.of("known")),
                "this node cannot reflect Wasm function types (--experimental-wasm-type-reflection)");
        List<String> checks = report.all("export-check");
        assertTrue(checks.size() >= 3, report.describe()); // at least allocator, context create, ABI version
        for (String check : checks) {
            assertTrue(check.endsWith(" ok"), "signature differs from the spec: " + check + "\n" + report.describe());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modules")
    void moduleImportsOnlyFunctionsSoItOwnsItsMemory(String name, String module) {
        V8Report report = report(module);
        List<String> imports = report.all("import");
        assertEquals(
                imports,
                report.named("import", "function").stream()
                        .map(n -> n + " function")
                        .toList(),
                report.describe());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modules")
    void moduleExportsWhatEnvoyLooksFor(String name, String module) {
        V8Report report = report(module);
        assertEquals(List.of("memory"), report.named("export", "memory"), report.describe());
        List<String> functions = report.named("export", "function");
        for (String required : Set.of(
                "proxy_on_memory_allocate",
                "proxy_abi_version_0_2_100",
                "proxy_on_context_create",
                "proxy_on_vm_start",
                "proxy_on_configure",
                "proxy_on_request_headers",
                "proxy_on_done",
                "proxy_on_delete")) {
            assertTrue(functions.contains(required), "missing export " + required + "\n" + report.describe());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modules")
    void moduleInstantiatesWithStubImports(String name, String module) {
        V8Report report = report(module);
        assertEquals(Optional.of("ok"), report.first("instantiate"), report.describe());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modules")
    void startFunctionCallsOnlyWhatEnvoyAllowsBeforeTheRootContextExists(String name, String module) {
        V8Report report = report(module);
        assertTrue(report.first("start").isPresent(), report.describe());
        // Envoy's restricted start phase permits proxy_log and WASI; any other env call fails the VM there.
        for (String call : report.callsDuring("start")) {
            assertTrue(
                    call.startsWith("env.proxy_log ") || call.startsWith("wasi_snapshot_preview1."),
                    "disallowed call during start: " + call + "\n" + report.describe());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modules")
    void memoryAllocatorReturnsANonZeroPointerInsideLinearMemory(String name, String module) {
        V8Report report = report(module);
        long pointer =
                Long.parseLong(report.first("allocate").orElseThrow(() -> new AssertionError(report.describe())));
        long memoryBytes = Long.parseLong(report.first("memory-bytes").orElseThrow());
        assertTrue(
                pointer > 0 && pointer + 64 <= memoryBytes,
                "pointer " + pointer + " not inside " + memoryBytes + " bytes\n" + report.describe());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("modules")
    void rootContextCreationRunsWithoutTrapping(String name, String module) {
        V8Report report = report(module);
        assertEquals(Optional.of("ok"), report.first("context-create"), report.describe());
        assertEquals(Optional.of("ok"), report.first("end"), report.describe());
    }
}
