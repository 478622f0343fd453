package io.ailb.teavm.plugin;

import org.teavm.interop.Address;
import org.teavm.interop.Unmanaged;
import org.teavm.model.AnnotationHolder;
import org.teavm.model.ClassHolder;
import org.teavm.model.ClassHolderTransformer;
import org.teavm.model.ClassHolderTransformerContext;
import org.teavm.model.MethodDescriptor;
import org.teavm.model.MethodHolder;
import org.teavm.model.MethodReference;
import org.teavm.model.emit.ProgramEmitter;
import org.teavm.model.emit.ValueEmitter;

/**
 * Compiles {@code io.ailb.codec.util.LittleEndian.readLong(byte[] bytes, int index)} to one 64-bit load: its body
 * becomes {@code Address.ofData(bytes).add(index).getLong()} (TeaVM intrinsics) and the method is unmanaged (no GC
 * frame, no exception check at the call site, no class-initialisation check), so a call costs a plain Wasm call
 * instead of eight checked byte reads. The codec class documents the range contract. Modules without the codec class
 * are not affected.
 */
final class WordReadTransformer implements ClassHolderTransformer {
    static final String LITTLE_ENDIAN = "io.ailb.codec.util.LittleEndian";
    private static final MethodDescriptor READ_LONG =
            new MethodDescriptor("readLong", byte[].class, int.class, long.class);

    @Override
    public void transformClass(ClassHolder cls, ClassHolderTransformerContext context) {
        if (!cls.getName().equals(LITTLE_ENDIAN)) {
            return;
        }
        MethodHolder method = cls.getMethod(READ_LONG);
        if (method == null || method.getProgram() == null) {
            throw new IllegalStateException(LITTLE_ENDIAN + "." + READ_LONG + " not found: update WordReadTransformer");
        }
        ProgramEmitter emitter = ProgramEmitter.create(method, context.getHierarchy());
        ValueEmitter data = emitter.invoke(
                new MethodReference(Address.class, "ofData", byte[].class, Address.class),
                emitter.var(1, byte[].class));
        data.invokeVirtual(
                        new MethodReference(Address.class, "add", int.class, Address.class), emitter.var(2, int.class))
                .invokeVirtual(new MethodReference(Address.class, "getLong", long.class))
                .returnValue();
        method.getAnnotations().add(new AnnotationHolder(Unmanaged.class.getName()));
    }
}
