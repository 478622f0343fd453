package io.ailb.teavm.plugin;

import org.teavm.model.ClassHolder;
import org.teavm.model.ClassHolderTransformer;
import org.teavm.model.ClassHolderTransformerContext;
import org.teavm.model.MethodDescriptor;
import org.teavm.model.MethodHolder;
import org.teavm.model.ValueType;
import org.teavm.model.emit.ProgramEmitter;

/**
 * Gives TeaVM's GC a work area ("GC storage") as large as the heap instead of 1/16 of it.
 *
 * <p>TeaVM 0.13.1's legacy Wasm runtime sizes the GC storage with {@code WasmHeap.calculateStorageSize(heap) =
 * heap / 16} and uses it, without bounds checks, for the mark queue (4 bytes per queued object; overflow prints
 * "Out of memory" and traps) and, during sweep and compaction, for the free-chunk list (4 bytes per gap between
 * live objects) followed by the relocation blocks (12 bytes each). The storage is the last thing in linear memory,
 * so an overflowing free-chunk list runs off the end: "out of bounds memory access". Both happen inside the very
 * GC that would grow the heap, so a larger heap only moves the threshold (it scales with the heap). With objects of
 * at least 8 bytes, all of these together stay below the heap size, so storage = heap cannot overflow.
 *
 * <p>The Java-side computation of the module's declared maximum memory still uses heap / 16;
 * {@link GcStorage#maxMemoryPages} and {@code BuildWasm} raise it accordingly.
 */
final class GcStorageTransformer implements ClassHolderTransformer {
    static final String WASM_HEAP = "org.teavm.backend.wasm.WasmHeap";
    private static final MethodDescriptor CALCULATE_STORAGE_SIZE =
            new MethodDescriptor("calculateStorageSize", int.class, int.class);

    @Override
    public void transformClass(ClassHolder cls, ClassHolderTransformerContext context) {
        if (!cls.getName().equals(WASM_HEAP)) {
            return;
        }
        MethodHolder method = cls.getMethod(CALCULATE_STORAGE_SIZE);
        if (method == null) {
            throw new IllegalStateException(WASM_HEAP + "." + CALCULATE_STORAGE_SIZE
                    + " not found: this TeaVM version lays out its heap differently; re-check the GC storage fix");
        }
        // return heapSize;
        ProgramEmitter emitter = ProgramEmitter.create(method, context.getHierarchy());
        emitter.var(1, ValueType.parse(int.class)).returnValue();
    }
}
