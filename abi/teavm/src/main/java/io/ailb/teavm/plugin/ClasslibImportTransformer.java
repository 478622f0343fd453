package io.ailb.teavm.plugin;

import io.ailb.teavm.runtime.InternPool;
import io.ailb.teavm.runtime.MonotonicClock;
import io.ailb.teavm.runtime.NumberShims;
import io.ailb.teavm.runtime.PureMath;
import java.util.List;
import org.teavm.interop.Import;
import org.teavm.model.AccessLevel;
import org.teavm.model.ClassHierarchy;
import org.teavm.model.ClassHolder;
import org.teavm.model.ClassHolderTransformer;
import org.teavm.model.ClassHolderTransformerContext;
import org.teavm.model.ElementModifier;
import org.teavm.model.MethodDescriptor;
import org.teavm.model.MethodHolder;
import org.teavm.model.MethodReference;
import org.teavm.model.ValueType;
import org.teavm.model.emit.ProgramEmitter;
import org.teavm.model.emit.ValueEmitter;

/**
 * Rewrites classlib methods whose TeaVM implementation is a host import no proxy-wasm host has, so that they call
 * our guest-side code instead, and adds the static helpers the boxed number classes lack. Runs on classes whose
 * names are already mapped to {@code java.*}.
 */
final class ClasslibImportTransformer implements ClassHolderTransformer {
    private static final String PLUGGABLE_DEPENDENCY = "org.teavm.dependency.PluggableDependency";
    private static final List<String> NUMBER_HELPERS = List.of("sum", "max", "min");

    @Override
    public void transformClass(ClassHolder cls, ClassHolderTransformerContext context) {
        ClassHierarchy hierarchy = context.getHierarchy();
        switch (cls.getName()) {
            case "java.lang.Math" -> {
                redirectStatic(cls, hierarchy, "exp", PureMath.class);
                redirectStatic(cls, hierarchy, "log", PureMath.class);
            }
            case "java.lang.System" -> replaceBody(
                    cls,
                    hierarchy,
                    new MethodDescriptor("nanoTime", long.class),
                    new MethodReference(MonotonicClock.class, "nanoTime", long.class),
                    false);
            case "java.lang.String" -> replaceBody(
                    cls,
                    hierarchy,
                    new MethodDescriptor("intern", String.class),
                    new MethodReference(InternPool.class, "intern", String.class, String.class),
                    true);
            case "java.lang.Integer" -> addNumberHelpers(cls, hierarchy, int.class);
            case "java.lang.Long" -> addNumberHelpers(cls, hierarchy, long.class);
            case "java.lang.Float" -> addNumberHelpers(cls, hierarchy, float.class);
            case "java.lang.Double" -> addNumberHelpers(cls, hierarchy, double.class);
            default -> {}
        }
    }

    private static void redirectStatic(ClassHolder cls, ClassHierarchy hierarchy, String name, Class<?> target) {
        replaceBody(
                cls,
                hierarchy,
                new MethodDescriptor(name, double.class, double.class),
                new MethodReference(target, name, double.class, double.class),
                false);
    }

    /** Adds {@code public static T sum/max/min(T, T)} where the classlib lacks them. */
    private static void addNumberHelpers(ClassHolder cls, ClassHierarchy hierarchy, Class<?> type) {
        for (String name : NUMBER_HELPERS) {
            MethodDescriptor descriptor = new MethodDescriptor(name, type, type, type);
            if (cls.getMethod(descriptor) != null) {
                continue;
            }
            MethodHolder method = new MethodHolder(descriptor);
            method.setLevel(AccessLevel.PUBLIC);
            method.getModifiers().add(ElementModifier.STATIC);
            cls.addMethod(method);
            replaceBody(
                    cls, hierarchy, descriptor, new MethodReference(NumberShims.class, name, type, type, type), false);
        }
    }

    /**
     * Gives the method a body that passes its receiver (when {@code passThis}) and its parameters to {@code target}
     * and returns the result; a native method stops being native and loses its import.
     */
    private static void replaceBody(
            ClassHolder cls,
            ClassHierarchy hierarchy,
            MethodDescriptor descriptor,
            MethodReference target,
            boolean passThis) {
        MethodHolder method = cls.getMethod(descriptor);
        if (method == null) {
            return;
        }
        method.getModifiers().remove(ElementModifier.NATIVE);
        method.getAnnotations().remove(Import.class.getName());
        method.getAnnotations().remove(PLUGGABLE_DEPENDENCY);
        ProgramEmitter emitter = ProgramEmitter.create(method, hierarchy);
        int offset = passThis ? 1 : 0;
        ValueEmitter[] arguments = new ValueEmitter[method.parameterCount() + offset];
        if (passThis) {
            arguments[0] = emitter.var(0, ValueType.object(cls.getName()));
        }
        for (int i = 0; i < method.parameterCount(); i++) {
            arguments[i + offset] = emitter.var(i + 1, method.parameterType(i));
        }
        emitter.invoke(target, arguments).returnValue();
    }
}
