package io.ailb.teavm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.dylibso.chicory.runtime.ExportFunction;
import com.dylibso.chicory.runtime.HostFunction;
import com.dylibso.chicory.runtime.ImportValues;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.wasi.WasiOptions;
import com.dylibso.chicory.wasi.WasiPreview1;
import com.dylibso.chicory.wasm.Parser;
import com.dylibso.chicory.wasm.types.FunctionType;
import com.dylibso.chicory.wasm.types.ValType;
import io.ailb.abi.codegen.AbiSpec;
import io.ailb.abi.codegen.SpecReader;
import io.ailb.teavm.guest.ForbiddenImportGuest;
import io.ailb.teavm.guest.ProbeGuest;
import io.ailb.teavm.runtime.Ulps;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Compiles test guests with TeaVM through BuildWasm (two compilations in total) and runs the result on Chicory. */
class BuildWasmTest {
    private static final Path SPEC = Path.of("src/test/resources/test-abi.json");
    private static final Path OUT_DIR = Path.of("target/test-wasm");

    private static Build probe;

    @BeforeAll
    static void compileProbeGuest() {
        probe = build(ProbeGuest.class, OUT_DIR.resolve("probe.wasm"));
    }

    @Test
    void probeGuestBuildsAndReportsASummary() {
        assertEquals(0, probe.status, probe.err);
        assertTrue(probe.out.startsWith("wasm: " + probe.wasm + " "), probe.out);
        assertTrue(
                probe.out.matches("(?s).* \\d+ bytes \\(\\d+\\.\\d KiB\\), \\d+ imports, \\d+ exports\\s*"), probe.out);
    }

    @Test
    void probeGuestImportsOnlyWhatTheSpecAllows() throws Exception {
        AbiSpec spec = SpecReader.read(SPEC);
        WasmModuleInfo module = WasmModuleInfo.read(probe.wasm);
        Set<String> imports = module.imports().stream()
                .map(WasmModuleInfo.ImportEntry::qualifiedName)
                .collect(Collectors.toSet());
        assertTrue(ModuleCheck.linkableImports(spec).keySet().containsAll(imports), "imports: " + imports);
        // The guest's own imports survive; TeaVM's nanoTime/Math imports were replaced by the plugin.
        assertTrue(imports.contains("env.proxy_log"), "imports: " + imports);
        assertTrue(imports.contains("wasi_snapshot_preview1.clock_time_get"), "imports: " + imports);
        assertTrue(module.exports().containsKey("memory"));
        assertTrue(module.exports().containsKey("proxy_abi_version_0_2_100"));
    }

    @Test
    void mathInsideWasmMatchesTheJvm() {
        Instance instance = instantiate(probe.wasm, new ArrayList<>());
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 2_000; i++) {
            double x = random.nextDouble(-700, 700);
            double positive = random.nextDouble(1e-300, 1e300);
            assertTrue(Ulps.between(call(instance, "probe_exp", x), StrictMath.exp(x)) <= 2, "exp " + x);
            assertTrue(
                    Ulps.between(call(instance, "probe_log", positive), StrictMath.log(positive)) <= 2,
                    "log " + positive);
            assertEquals(Math.sqrt(positive), call(instance, "probe_sqrt", positive), "sqrt " + positive);
            assertEquals(Math.floor(x), call(instance, "probe_floor", x), "floor " + x);
            assertEquals(Math.ceil(x), call(instance, "probe_ceil", x), "ceil " + x);
        }
        assertEquals(42.0, call(instance, "probe_log1p_exp", 41.0), 1e-12);
        assertEquals(Double.NEGATIVE_INFINITY, call(instance, "probe_log", 0.0));
        assertEquals(-0.0, call(instance, "probe_ceil", -0.5));
    }

    @Test
    void nanoTimeInternCollectionsAndNumberHelpersWorkInsideWasm() {
        List<String> logs = new ArrayList<>();
        Instance instance = instantiate(probe.wasm, logs);
        assertTrue(instance.export("probe_nano_time").apply()[0] >= 0, "System.nanoTime must be monotonic");
        assertEquals(1, instance.export("probe_intern").apply()[0]);
        assertEquals(7, instance.export("probe_count_words").apply(100)[0]);
        assertEquals(
                13.0,
                Double.longBitsToDouble(instance.export("probe_number_helpers").apply()[0]));
        assertEquals(List.of("level=2 distinct=7 w0=15"), logs);
    }

    /** The plugin's ByteAccess intrinsic and unmanaged copy give what the plain Java gives on the JVM. */
    @Test
    void byteAccessInsideWasmMatchesTheJvm() {
        Instance instance = instantiate(probe.wasm, new ArrayList<>());
        for (int seed = 0; seed < 20; seed++) {
            for (int index = 0; index <= 32; index++) {
                assertEquals(
                        ProbeGuest.readLongLE(seed, index),
                        instance.export("probe_read_long_le").apply(seed, index)[0],
                        "seed " + seed + " index " + index);
            }
            int[][] ranges = {
                {0, 0, 40},
                {3, 11, 20},
                {39, 0, 1},
                {0, 39, 1},
                {5, 5, 0},
                {1, 0, 40},
                {0, 1, 40},
                {-1, 0, 2},
                {0, -1, 2},
                {0, 0, -1}
            };
            for (int[] r : ranges) {
                assertEquals(
                        ProbeGuest.copy(seed, r[0], r[1], r[2]),
                        instance.export("probe_copy").apply(seed, r[0], r[1], r[2])[0],
                        "seed " + seed + " copy " + java.util.Arrays.toString(r));
            }
        }
        assertEquals(-1, ProbeGuest.copy(0, 1, 0, 40), "the JVM side refuses the range too");
        for (int from = 0; from < 20; from++) {
            assertEquals(
                    ProbeGuest.codePoints(from),
                    instance.export("probe_code_points").apply(from)[0],
                    "from " + from);
        }
    }

    @Test
    void forbiddenImportFailsTheBuildAndNamesTheImport() {
        Build forbidden = build(ForbiddenImportGuest.class, OUT_DIR.resolve("forbidden.wasm"));
        assertEquals(1, forbidden.status, forbidden.err);
        assertTrue(
                forbidden.err.contains("ERROR: imports an Envoy/Higress host cannot link: [foo.bar]"), forbidden.err);
        assertFalse(Files.exists(forbidden.wasm), "a rejected module must not be left behind");
    }

    @Test
    void badCommandLineIsRejectedWithUsage() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BuildWasm.run(
                new String[] {"--main", "x.Y", "--out", "a.wasm"},
                List.of(),
                new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, status);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--main, --out and --spec are required"));
    }

    private record Build(int status, Path wasm, String out, String err) {}

    private static Build build(Class<?> guest, Path wasm) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BuildWasm.run(
                new String[] {"--main", guest.getName(), "--out", wasm.toString(), "--spec", SPEC.toString()},
                TestClassPath.files(),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Build(status, wasm, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static Instance instantiate(Path wasm, List<String> logs) {
        HostFunction proxyLog = new HostFunction(
                "env",
                "proxy_log",
                FunctionType.of(List.of(ValType.I32, ValType.I32, ValType.I32), List.of(ValType.I32)),
                (instance, args) -> {
                    logs.add("level=" + args[0] + " " + instance.memory().readString((int) args[1], (int) args[2]));
                    return new long[] {0};
                });
        HostFunction currentTime = new HostFunction(
                "env",
                "proxy_get_current_time_nanoseconds",
                FunctionType.of(List.of(ValType.I32), List.of(ValType.I32)),
                (instance, args) -> {
                    instance.memory().writeLong((int) args[0], System.currentTimeMillis() * 1_000_000L);
                    return new long[] {0};
                });
        WasiPreview1 wasi = WasiPreview1.builder()
                .withOptions(WasiOptions.builder().build())
                .build();
        ImportValues imports = ImportValues.builder()
                .addFunction(wasi.toHostFunctions())
                .addFunction(proxyLog, currentTime)
                .build();
        return Instance.builder(Parser.parse(wasm))
                .withImportValues(imports)
                .withStart(false)
                .build();
    }

    private static double call(Instance instance, String export, double argument) {
        ExportFunction function = instance.export(export);
        return Double.longBitsToDouble(function.apply(Double.doubleToRawLongBits(argument))[0]);
    }
}
