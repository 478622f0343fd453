package io.ailb.teavm.plugin;

import org.teavm.model.BasicBlock;
import org.teavm.model.ClassHolder;
import org.teavm.model.ClassHolderTransformer;
import org.teavm.model.ClassHolderTransformerContext;
import org.teavm.model.Instruction;
import org.teavm.model.MethodDescriptor;
import org.teavm.model.MethodHolder;
import org.teavm.model.MethodReference;
import org.teavm.model.Program;
import org.teavm.model.ValueType;
import org.teavm.model.instructions.InvokeInstruction;

/**
 * Makes TeaVM 0.13.1's Wasm GC see every static reference field as a root.
 *
 * <p>The Wasm backend writes the static-roots table as a 64-bit count followed by 32-bit field addresses, but the GC
 * reads a 32-bit count and then steps by {@code Address.sizeOf()} (4 bytes in Wasm). It thus takes the count's upper
 * half (0) for the first field and never reaches the last one: whatever static field the table lists last (e.g. the
 * {@code Integer.valueOf} cache) is collected while still in use and its memory reused. Both readers of the table,
 * {@code GC.markFromStaticFields} and {@code GC.updatePointersFromStaticRoots}, get it through
 * {@code Mutator.getStaticGCRoots()}; their calls are redirected to {@code AilbGcFix.staticGcRoots()}, which hands out
 * the table in the layout the GC reads.
 */
final class GcStaticRootsTransformer implements ClassHolderTransformer {
    private static final ValueType ADDRESS = ValueType.object("org.teavm.interop.Address");
    private static final MethodReference TABLE =
            new MethodReference("org.teavm.runtime.Mutator", "getStaticGCRoots", ADDRESS);
    private static final MethodReference FIXED_TABLE =
            new MethodReference(GcExactFitTransformer.FIX, "staticGcRoots", ADDRESS);
    private static final MethodDescriptor[] READERS = {
        new MethodDescriptor("markFromStaticFields", ValueType.VOID),
        new MethodDescriptor("updatePointersFromStaticRoots", ValueType.VOID),
    };

    @Override
    public void transformClass(ClassHolder cls, ClassHolderTransformerContext context) {
        if (!cls.getName().equals(GcExactFitTransformer.GC)) {
            return;
        }
        for (MethodDescriptor reader : READERS) {
            MethodHolder method = cls.getMethod(reader);
            if (method == null || method.getProgram() == null || redirect(method.getProgram()) != 1) {
                throw new IllegalStateException(GcExactFitTransformer.GC + "." + reader + " does not read the static"
                        + " roots once: this TeaVM version's GC differs; re-check the static-roots fix");
            }
        }
    }

    /** @return how many calls were redirected */
    private static int redirect(Program program) {
        int redirected = 0;
        for (BasicBlock block : program.getBasicBlocks()) {
            for (Instruction instruction : block) {
                if (instruction instanceof InvokeInstruction invoke
                        && invoke.getMethod().equals(TABLE)) {
                    invoke.setMethod(FIXED_TABLE);
                    redirected++;
                }
            }
        }
        return redirected;
    }
}
