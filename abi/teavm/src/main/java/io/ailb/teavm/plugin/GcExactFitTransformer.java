package io.ailb.teavm.plugin;

import org.teavm.model.ClassHolder;
import org.teavm.model.ClassHolderTransformer;
import org.teavm.model.ClassHolderTransformerContext;
import org.teavm.model.MethodDescriptor;
import org.teavm.model.MethodHolder;
import org.teavm.model.ValueType;
import org.teavm.model.emit.ProgramEmitter;
import org.teavm.model.emit.ValueEmitter;

/**
 * Fixes the "exact fit" bugs of TeaVM 0.13.1's GC (hangs in sweep / calculateRelocationTargets and false "Out of
 * memory" after the heap grew for a large array; a hang on System.gc() after an exact fit) by delegating
 * {@code GC.computeMinRequestedSize} and {@code GC.fixHeap} to {@code org.teavm.runtime.AilbGcFix}; see that class
 * and README "GC storage".
 *
 * <p>Refusing exact fits altogether (also in {@code getNextChunkIfPossible}) was tried and rejected: with a heap full
 * of equally sized gaps (HeapGrowthTest's chain with gaps) the collector then never finished.
 */
final class GcExactFitTransformer implements ClassHolderTransformer {
    static final String GC = "org.teavm.runtime.GC";
    static final String FIX = "org.teavm.runtime.AilbGcFix";

    private static final MethodDescriptor[] PATCHED = {
        new MethodDescriptor("computeMinRequestedSize", int.class, long.class),
        new MethodDescriptor("fixHeap", void.class),
    };

    @Override
    public void transformClass(ClassHolder cls, ClassHolderTransformerContext context) {
        if (!cls.getName().equals(GC)) {
            return;
        }
        for (MethodDescriptor descriptor : PATCHED) {
            MethodHolder method = cls.getMethod(descriptor);
            if (method == null || method.getProgram() == null) {
                throw new IllegalStateException(GC + "." + descriptor
                        + " not found: this TeaVM version's GC differs; re-check the exact-fit GC fix");
            }
            ProgramEmitter emitter = ProgramEmitter.create(method, context.getHierarchy());
            ValueEmitter[] args = new ValueEmitter[descriptor.parameterCount()];
            for (int i = 0; i < args.length; i++) {
                args[i] = emitter.var(i + 1, descriptor.parameterType(i));
            }
            if (descriptor.getResultType() == ValueType.VOID) {
                emitter.invoke(FIX, descriptor.getName(), args);
                emitter.exit();
            } else {
                emitter.invoke(FIX, descriptor.getName(), descriptor.getResultType(), args)
                        .returnValue();
            }
        }
    }
}
