package io.ailb.teavm.plugin;

import org.teavm.model.ClassHolder;
import org.teavm.model.ClassHolderTransformer;
import org.teavm.model.ClassHolderTransformerContext;
import org.teavm.model.MethodDescriptor;
import org.teavm.model.MethodHolder;
import org.teavm.model.ValueType;
import org.teavm.model.emit.ProgramEmitter;

/**
 * Makes {@code _start} hand {@code main} an empty argument array without asking the host.
 *
 * <p>TeaVM 0.13.1's {@code WasiSupport.getArgs()} drops argv[0] with {@code new String[argc - 1]}. Envoy's
 * proxy-wasm host (and Chicory without options) report {@code argc = 0}, and TeaVM's low-level allocator does not
 * reject the negative size: {@code _start} leaves an array of length -1 in the heap, and the first collection walks
 * off its bogus size (out-of-bounds traps, endless loops or AIOOBEs in unrelated code, a few dozen requests after
 * start). A proxy-wasm module has no command line anyway, and this also drops the {@code args_*} imports.
 */
final class MainArgsTransformer implements ClassHolderTransformer {
    private static final String WASI_SUPPORT = "org.teavm.backend.wasm.runtime.WasiSupport";

    @Override
    public void transformClass(ClassHolder cls, ClassHolderTransformerContext context) {
        if (!cls.getName().equals(WASI_SUPPORT)) {
            return;
        }
        MethodHolder method = cls.getMethod(new MethodDescriptor("getArgs", String[].class));
        if (method == null || method.getProgram() == null) {
            throw new IllegalStateException(WASI_SUPPORT + ".getArgs() not found: this TeaVM version differs;"
                    + " re-check the empty-arguments fix");
        }
        ProgramEmitter emitter = ProgramEmitter.create(method, context.getHierarchy());
        emitter.constructArray(ValueType.object("java.lang.String"), emitter.constant(0))
                .returnValue();
    }
}
