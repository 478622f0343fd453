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
 * Compiles the codec's {@code io.ailb.codec.util.ByteAccess} to single Wasm memory instructions:
 * {@code readLongLE(bytes, index)} becomes {@code Address.ofData(bytes).add(index).getLong()} (one {@code i64.load})
 * and {@code copyChecked(source, sourceIndex, target, targetIndex, length)}, whose ranges {@code copy} has checked,
 * becomes {@code Address.moveMemoryBlock} (one {@code memory.copy}). Both are made unmanaged: no GC frame, no
 * exception check at the call site, no class-initialisation check, so a call is a plain Wasm call. The codec class
 * documents the range contracts. Modules without the codec class are not affected.
 */
final class ByteAccessTransformer implements ClassHolderTransformer {
    static final String BYTE_ACCESS = "io.ailb.codec.util.ByteAccess";
    static final MethodDescriptor READ_LONG_LE =
            new MethodDescriptor("readLongLE", byte[].class, int.class, long.class);
    private static final MethodDescriptor COPY_CHECKED = new MethodDescriptor(
            "copyChecked", byte[].class, int.class, byte[].class, int.class, int.class, void.class);
    private static final MethodReference OF_DATA =
            new MethodReference(Address.class, "ofData", byte[].class, Address.class);
    private static final MethodReference ADD = new MethodReference(Address.class, "add", int.class, Address.class);

    @Override
    public void transformClass(ClassHolder cls, ClassHolderTransformerContext context) {
        if (!cls.getName().equals(BYTE_ACCESS)) {
            return;
        }
        ProgramEmitter read = emitterFor(cls, READ_LONG_LE, context);
        addressOf(read, 1, 2)
                .invokeVirtual(new MethodReference(Address.class, "getLong", long.class))
                .returnValue();

        ProgramEmitter copy = emitterFor(cls, COPY_CHECKED, context);
        copy.invoke(
                new MethodReference(
                        Address.class, "moveMemoryBlock", Address.class, Address.class, int.class, void.class),
                addressOf(copy, 1, 2),
                addressOf(copy, 3, 4),
                copy.var(5, int.class));
        copy.exit();
    }

    /** A fresh body for {@code descriptor}, which becomes unmanaged. */
    private static ProgramEmitter emitterFor(
            ClassHolder cls, MethodDescriptor descriptor, ClassHolderTransformerContext context) {
        MethodHolder method = cls.getMethod(descriptor);
        if (method == null || method.getProgram() == null) {
            throw new IllegalStateException(
                    BYTE_ACCESS + "." + descriptor + " not found: update ByteAccessTransformer");
        }
        method.getAnnotations().add(new AnnotationHolder(Unmanaged.class.getName()));
        return ProgramEmitter.create(method, context.getHierarchy());
    }

    /** The address of element {@code var(index)} of the byte array {@code var(array)}. */
    private static ValueEmitter addressOf(ProgramEmitter emitter, int array, int index) {
        return emitter.invoke(OF_DATA, emitter.var(array, byte[].class))
                .invokeVirtual(ADD, emitter.var(index, int.class));
    }
}
