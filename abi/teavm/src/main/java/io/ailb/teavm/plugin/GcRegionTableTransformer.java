package io.ailb.teavm.plugin;

import org.teavm.model.ClassHolder;
import org.teavm.model.ClassHolderTransformer;
import org.teavm.model.ClassHolderTransformerContext;
import org.teavm.model.MethodDescriptor;
import org.teavm.model.MethodHolder;
import org.teavm.model.MethodReference;
import org.teavm.model.ValueType;
import org.teavm.model.emit.ProgramEmitter;
import org.teavm.model.instructions.InvocationType;
import org.teavm.model.instructions.InvokeInstruction;

/**
 * Keeps TeaVM 0.13.1's young collection from reading past its region table (README "GC storage", region table).
 *
 * <p>{@code GC.calculateRelocationTargets} skips runs of regions that hold only old objects: it steps to the next
 * region until one has young objects, a gap, or no object starting in it, with no check against the region count
 * (sweep and relocateObjects have that check). When old objects fill the heap up to its last byte, the step leaves the
 * table and reads whatever lies after it: bytes the memory held before the heap grew. The collector then walks an
 * "object" outside the heap: an out-of-bounds trap in {@code GC.objectSize}, or a free chunk recorded at a wild
 * address.
 *
 * <p>The fix gives the table one entry more than the GC uses ({@code WasmHeap.calculateRegionsCount} delegates to
 * {@code AilbGcFix.regionsCount}) and clears it at the start of every {@code calculateRelocationTargets}
 * ({@code AilbGcFix.endRegionTable}): "no object starts here" stops the step at the end of the heap.
 */
final class GcRegionTableTransformer implements ClassHolderTransformer {
    private static final MethodDescriptor REGIONS_COUNT =
            new MethodDescriptor("calculateRegionsCount", int.class, int.class, int.class);
    private static final MethodDescriptor RELOCATION_TARGETS =
            new MethodDescriptor("calculateRelocationTargets", void.class);
    private static final MethodReference END_TABLE =
            new MethodReference(GcExactFitTransformer.FIX, "endRegionTable", ValueType.VOID);

    @Override
    public void transformClass(ClassHolder cls, ClassHolderTransformerContext context) {
        if (cls.getName().equals(GcStorageTransformer.WASM_HEAP)) {
            MethodHolder method = existing(cls, REGIONS_COUNT);
            ProgramEmitter emitter = ProgramEmitter.create(method, context.getHierarchy());
            emitter.invoke(
                            GcExactFitTransformer.FIX,
                            "regionsCount",
                            ValueType.INTEGER,
                            emitter.var(1, ValueType.INTEGER),
                            emitter.var(2, ValueType.INTEGER))
                    .returnValue();
        } else if (cls.getName().equals(GcExactFitTransformer.GC)) {
            MethodHolder method = existing(cls, RELOCATION_TARGETS);
            InvokeInstruction endTable = new InvokeInstruction();
            endTable.setType(InvocationType.SPECIAL);
            endTable.setMethod(END_TABLE);
            method.getProgram().basicBlockAt(0).addFirst(endTable);
        }
    }

    private static MethodHolder existing(ClassHolder cls, MethodDescriptor descriptor) {
        MethodHolder method = cls.getMethod(descriptor);
        if (method == null || method.getProgram() == null) {
            throw new IllegalStateException(cls.getName() + "." + descriptor
                    + " not found: this TeaVM version's GC differs; re-check the region-table fix");
        }
        return method;
    }
}
