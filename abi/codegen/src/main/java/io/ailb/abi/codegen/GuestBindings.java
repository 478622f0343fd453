package io.ailb.abi.codegen;

import io.ailb.abi.codegen.AbiSpec.Function;
import java.util.ArrayList;
import java.util.List;

/** Guest-side sources (package {@code io.ailb.proxywasm.bindings}), compiled to Wasm by TeaVM. */
final class GuestBindings {
    private static final Side SIDE = Side.GUEST;

    private GuestBindings() {}

    static List<GeneratedFile> render(AbiSpec spec) {
        List<GeneratedFile> files = new ArrayList<>();
        files.add(file("ProxyWasmImports", imports(spec)));
        files.add(file("GuestCallbacks", callbacks(spec)));
        files.add(file("ProxyWasmExports", exports(spec)));
        files.addAll(EnumClasses.render(spec, SIDE));
        return files;
    }

    private static GeneratedFile file(String className, String content) {
        return new GeneratedFile(SIDE.packagePath() + "/" + className + ".java", content);
    }

    private static String imports(AbiSpec spec) {
        SourceWriter out = new SourceWriter(SIDE.packageName());
        out.line("import org.teavm.interop.Import;");
        out.line();
        out.javadocMarkup("Host functions of " + spec.name() + ", imported by the module (module {@code env}).");
        out.open("public final class ProxyWasmImports");
        out.open("private ProxyWasmImports()");
        out.close();
        for (Function function : spec.imports()) {
            out.line();
            out.javadoc(Signatures.javadoc(function));
            out.line("@Import(module = \"" + function.module() + "\", name = \"" + function.name() + "\")");
            out.line("public static native " + Signatures.resultType(function) + " " + function.javaName() + "("
                    + Signatures.parameters(function) + ");");
        }
        out.close();
        return out.toString();
    }

    private static String callbacks(AbiSpec spec) {
        return Signatures.methodInterface(
                SIDE.packageName(),
                "Receives every callback of " + spec.name() + "; installed as {@link ProxyWasmExports#callbacks}.",
                "GuestCallbacks",
                spec.exports());
    }

    private static String exports(AbiSpec spec) {
        SourceWriter out = new SourceWriter(SIDE.packageName());
        out.line("import org.teavm.interop.Export;");
        out.line();
        out.javadocMarkup("Wasm entry points of " + spec.name() + "; each delegates to {@link #callbacks}.");
        out.open("public final class ProxyWasmExports");
        out.javadocMarkup("Where callbacks go; while it is null every export returns the spec's default result.");
        out.line("public static GuestCallbacks callbacks;");
        out.line();
        out.open("private ProxyWasmExports()");
        out.close();
        out.line();
        out.javadocMarkup("ABI version marker; the host only checks that it is exported and never calls it.");
        out.line("@Export(name = \"" + spec.abiVersionExport() + "\")");
        out.open("public static void " + Names.lowerCamel(spec.abiVersionExport()) + "()");
        out.close();
        for (Function function : spec.exports()) {
            out.line();
            out.javadoc(Signatures.javadoc(function));
            out.line("@Export(name = \"" + function.name() + "\")");
            out.open("public static " + Signatures.resultType(function) + " " + function.javaName() + "("
                    + Signatures.parameters(function) + ")");
            // One read of the field: the null check and the call must see the same callbacks.
            out.line("GuestCallbacks current = callbacks;");
            String call = "current." + function.javaName() + "(" + Signatures.arguments(function) + ");";
            if (function.result() == null) {
                out.open("if (current != null)");
                out.line(call);
                out.close();
            } else {
                out.open("if (current == null)");
                out.line("return " + Signatures.defaultResult(function) + ";");
                out.close();
                out.line("return " + call);
            }
            out.close();
        }
        out.close();
        return out.toString();
    }
}
