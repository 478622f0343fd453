package io.ailb.teavm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.dylibso.chicory.compiler.MachineFactoryCompiler;
import com.dylibso.chicory.runtime.ImportValues;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.wasi.WasiOptions;
import com.dylibso.chicory.wasi.WasiPreview1;
import com.dylibso.chicory.wasm.Parser;
import com.dylibso.chicory.wasm.WasmModule;
import io.ailb.teavm.guest.HeapGuest;
import io.ailb.teavm.plugin.GcStorage;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Allocates far past the 4 MiB initial heap (default --min-heap-mb), live and garbage, on Chicory's interpreter and
 * compiler. Without the plugin's GC storage fix every pattern except the churn and the big array trapped on the
 * first collection, before the heap could grow (README "GC storage").
 */
class HeapGrowthTest {
    private static final Path WASM = Path.of("target/test-wasm/heap.wasm");
    private static final int MIB = 1024 * 1024;
    private static final int PAGE = 65536;
    private static WasmModule module;

    @BeforeAll
    static void compileHeapGuest() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BuildWasm.run(new String[] {"--main", HeapGuest.class.getName(), "--out", WASM.toString(),
                "--spec", "src/test/resources/test-abi.json"}, testClassPath(),
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
        module = Parser.parse(WASM);
    }

    @Test
    void declaredMaximumLeavesRoomForTheMaximumHeapAndItsGcStorage() throws Exception {
        WasmMemoryLimits.Limits limits = WasmMemoryLimits.read(Files.readAllBytes(WASM));
        // TeaVM alone declares 1096 pages for a 64 MiB heap (storage 4 MiB); the storage is now 64 MiB.
        assertEquals(GcStorage.maxMemoryPages(1096, 64L * MIB), limits.max());
        assertTrue(limits.max() * PAGE >= 64L * MIB + GcStorage.storageBytes(64L * MIB), "max " + limits.max());
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void liveListsFarPastTheInitialHeap(boolean compiled) {
        Instance instance = instantiate(compiled);
        int initialPages = instance.memory().pages();
        // 100,000 lists of 4 items: ~10 MiB live, 400,000 objects queued at once while marking.
        long expected = 0;
        for (long i = 0; i < 100_000; i++) {
            expected += 4 * i + 6;
        }
        assertEquals(expected, instance.export("heap_lists").apply(100_000, 4)[0]);
        assertTrue(instance.memory().pages() > 2 * initialPages, "pages " + instance.memory().pages());
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void fragmentedHeapFarPastTheInitialHeap(boolean compiled) {
        Instance instance = instantiate(compiled);
        // 300,000 live 16-byte nodes, each followed by a dead object: ~150,000 gaps per collection.
        assertEquals(300_000, instance.export("heap_chain_with_gaps").apply(300_000)[0]);
        instance.export("heap_reset").apply();
        // The space is reusable after the graph dies.
        assertEquals(200_000, instance.export("heap_chain_with_gaps").apply(200_000)[0]);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void garbageThenALargeArray(boolean compiled) {
        Instance instance = instantiate(compiled);
        int pagesBefore = instance.memory().pages();
        instance.export("heap_churn").apply(200_000, 1_000); // 200 MB of garbage through a 4 MiB heap
        assertEquals(pagesBefore, instance.memory().pages(), "garbage alone must not grow memory");
        // Nothing is allocated after the large array on purpose: see README "Open: GC hang after a large array".
        assertEquals(24 * 256, instance.export("heap_big_array").apply(24 * MIB)[0]);
    }

    private static Instance instantiate(boolean compiled) {
        WasiPreview1 wasi = WasiPreview1.builder().withOptions(WasiOptions.builder().build()).build();
        Instance.Builder builder = Instance.builder(module)
                .withImportValues(ImportValues.builder().addFunction(wasi.toHostFunctions()).build())
                .withStart(false);
        if (compiled) {
            builder.withMachineFactory(MachineFactoryCompiler.compile(module));
        }
        return builder.build();
    }

    private static List<File> testClassPath() {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<File> files = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            files.add(new File(entry));
        }
        return files;
    }
}
