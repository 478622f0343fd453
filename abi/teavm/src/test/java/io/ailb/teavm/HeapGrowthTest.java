package io.ailb.teavm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

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
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
    private static final long GUEST_TIMEOUT_MS = 30_000;
    private static WasmModule module;

    @BeforeAll
    static void compileHeapGuest() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BuildWasm.run(
                new String[] {
                    "--main",
                    HeapGuest.class.getName(),
                    "--out",
                    WASM.toString(),
                    "--spec",
                    "src/test/resources/test-abi.json"
                },
                TestClassPath.files(),
                new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
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
        assertTrue(
                instance.memory().pages() > 2 * initialPages,
                "pages " + instance.memory().pages());
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
        assertEquals(24 * 256, instance.export("heap_big_array").apply(24 * MIB)[0]);
        // Allocating after the large array used to hang the next collection (see the exact-fit tests below).
        assertEquals(
                HeapGuest.churn(20_000, 1_000), instance.export("heap_churn").apply(20_000, 1_000)[0]);
    }

    // ---- TeaVM GC exact-fit bugs (README "GC storage"; GcExactFitTransformer) ------------------------------------
    // Without the fix: a hang (calculateRelocationTargets / sweep) or a false "Out of memory" trap. The sizes make the
    // byte[] object (12-byte header) exactly 4, 8 or 16 MiB, or a few bytes less, so the heap grows by exactly it.

    @ParameterizedTest
    @ValueSource(ints = {4 * MIB - 12, 4 * MIB - 16, 8 * MIB - 12, 8 * MIB - 16, 8 * MIB - 4, 8 * MIB, 16 * MIB - 12})
    void largeArrayThenAllocations(int size) {
        Instance instance = instantiate(true);
        assertEquals(7 + 50_000, callWithTimeout(instance, "heap_big_then_alloc", size, 100_000));
    }

    @ParameterizedTest
    @ValueSource(ints = {4 * MIB - 12, 4 * MIB - 16, 8 * MIB - 12, 16 * MIB - 12})
    void largeArrayThenSystemGc(int size) {
        Instance instance = instantiate(true);
        assertEquals(5 + 1_000, callWithTimeout(instance, "heap_big_then_gc", size));
    }

    @Test
    void oneMibLiveThenFourMib() {
        Instance instance = instantiate(true);
        assertEquals(256, callWithTimeout(instance, "heap_big_array", MIB));
        assertEquals(1024, callWithTimeout(instance, "heap_big_array", 4 * MIB));
        assertEquals(7 + 5, callWithTimeout(instance, "heap_big_then_alloc", 4 * MIB - 12, 10));
    }

    @Test
    void mixedSizeChurn() {
        Instance instance = instantiate(true);
        // The same code on the JVM gives the expected checksum.
        assertEquals(
                HeapGuest.mixedChurn(100_000, 512, 0), callWithTimeout(instance, "heap_mixed_churn", 100_000, 512, 0));
        assertEquals(
                HeapGuest.mixedChurn(100_000, 64, 0), callWithTimeout(instance, "heap_mixed_churn", 100_000, 64, 0));
    }

    @Test
    void mixedSizeChurnWithSystemGc() {
        Instance instance = instantiate(true);
        // The checksum does not depend on the GC calls; the JVM computes it without them (its System.gc() is slow).
        assertEquals(
                HeapGuest.mixedChurn(20_000, 256, 0), callWithTimeout(instance, "heap_mixed_churn", 20_000, 256, 25));
        assertEquals(
                HeapGuest.mixedChurn(3_000, 2_000, 0), callWithTimeout(instance, "heap_mixed_churn", 3_000, 2_000, 1));
    }

    // TeaVM writes the static-roots table with a 64-bit count that the Wasm GC reads as 32 bits: the last static
    // field was never a root. Here that is Integer.valueOf's cache, which the lists' items come from: without the
    // fix, the second call trapped (ClassCastException on an overwritten cache entry).
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void staticFieldsStayRootsThroughCollections(boolean compiled) {
        Instance instance = instantiate(compiled);
        assertEquals(0, callWithTimeout(instance, "heap_bad_static_roots"));
        assertEquals(9, callWithTimeout(instance, "heap_lists", 2, 3)); // items 0,1,2 and 1,2,3
        callWithTimeout(instance, "heap_churn", 100_000, 100); // 10 MB of garbage: several collections
        assertEquals(18, callWithTimeout(instance, "heap_lists", 2, 3));
        assertEquals(0, callWithTimeout(instance, "heap_bad_static_roots"), "the table is fixed once, not twice");
    }

    // TeaVM's _start built main's arguments as new String[argc - 1]; hosts report argc = 0, and the array of length
    // -1 it left in the heap derailed the first collection (a hang or an out-of-bounds trap).
    @Test
    void collectionsAfterStartFindAHealthyHeap() {
        Instance instance = instantiate(true);
        instance.export("_start").apply();
        assertEquals(HeapGuest.mixedChurn(3_000, 200, 0), callWithTimeout(instance, "heap_mixed_churn", 3_000, 200, 1));
    }

    // ---- TeaVM GC region-table overrun (README "GC storage"; GcRegionTableTransformer) ----------------------------
    // Without the fix: "out of bounds memory access" in GC.objectSize under calculateRelocationTargets, as on V8. The
    // sizes grow the heap to 5,246,056 and 6,291,656 bytes: not whole regions, with padding after the tables.

    @ParameterizedTest
    @ValueSource(ints = {5 * MIB + 3000, 6 * MIB + 17})
    void oldObjectsUpToTheHeapEndThenYoungCollections(int grow) {
        Instance instance = instantiate(true);
        assertEquals(16, callWithTimeout(instance, "heap_old_objects_to_the_end", grow, 1));
    }

    /** Calls an export on a worker thread; a GC that loops forever fails the test instead of hanging the build. */
    private static long callWithTimeout(Instance instance, String export, long... args) {
        long[][] result = new long[1][];
        Throwable[] error = new Throwable[1];
        Thread worker = new Thread(
                () -> {
                    try {
                        result[0] = instance.export(export).apply(args);
                    } catch (Throwable e) {
                        error[0] = e;
                    }
                },
                "guest-" + export);
        worker.setDaemon(true);
        worker.start();
        try {
            worker.join(GUEST_TIMEOUT_MS);
            if (worker.isAlive()) {
                worker.interrupt(); // Chicory checks the interrupt flag and stops the guest
                worker.join(5_000);
                fail(export + " did not return within " + GUEST_TIMEOUT_MS + " ms (GC hang?)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        if (error[0] != null) {
            throw new AssertionError(export + " trapped", error[0]);
        }
        return result[0][0];
    }

    private static Instance instantiate(boolean compiled) {
        WasiPreview1 wasi = WasiPreview1.builder()
                .withOptions(WasiOptions.builder().build())
                .build();
        Instance.Builder builder = Instance.builder(module)
                .withImportValues(ImportValues.builder()
                        .addFunction(wasi.toHostFunctions())
                        .build())
                .withStart(false);
        if (compiled) {
            builder.withMachineFactory(MachineFactoryCompiler.compile(module));
        }
        return builder.build();
    }
}
