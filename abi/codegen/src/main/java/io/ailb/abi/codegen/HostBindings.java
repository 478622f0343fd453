package io.ailb.abi.codegen;

import io.ailb.abi.codegen.AbiSpec.Function;
import io.ailb.abi.codegen.AbiSpec.Param;
import java.util.ArrayList;
import java.util.List;

/** Host-side sources (package {@code io.ailb.emulator.bindings}) for the Chicory emulator. */
final class HostBindings {
    private static final Side SIDE = Side.HOST;

    private HostBindings() {}

    static List<GeneratedFile> render(AbiSpec spec) {
        List<GeneratedFile> files = new ArrayList<>();
        files.add(file("HostImports", hostImports(spec)));
        files.add(file("HostImportTable", hostImportTable(spec)));
        files.add(file("GuestExports", guestExports(spec)));
        files.add(file("WasiImports", wasiImports(spec)));
        files.addAll(EnumClasses.render(spec, SIDE));
        return files;
    }

    private static GeneratedFile file(String className, String content) {
        return new GeneratedFile(SIDE.packagePath() + "/" + className + ".java", content);
    }

    private static String hostImports(AbiSpec spec) {
        return Signatures.methodInterface(
                SIDE.packageName(),
                "The host functions of " + spec.name()
                        + " (module {@code env}); an implementation holds its instance. {@link HostImportTable} links them.",
                "HostImports",
                spec.imports());
    }

    private static String hostImportTable(AbiSpec spec) {
        SourceWriter out = new SourceWriter(SIDE.packageName());
        out.line("import com.dylibso.chicory.runtime.HostFunction;");
        out.line("import com.dylibso.chicory.runtime.Instance;");
        out.line("import com.dylibso.chicory.wasm.types.FunctionType;");
        out.line("import com.dylibso.chicory.wasm.types.ValType;");
        out.line("import java.util.List;");
        out.line();
        out.javadocMarkup("Chicory host functions for every {@code env} import of " + spec.name() + ".");
        out.open("public final class HostImportTable");
        out.open("private HostImportTable()");
        out.close();
        out.line();
        out.javadocMarkup("One {@link HostFunction} per import, in spec order, each calling {@code impl}.");
        out.open("public static List<HostFunction> functions(HostImports impl)");
        if (spec.imports().isEmpty()) {
            out.line("return List.of();");
        } else {
            out.line("return List.of(");
            List<Function> imports = spec.imports();
            for (int i = 0; i < imports.size(); i++) {
                hostFunction(out, imports.get(i), i == imports.size() - 1 ? ");" : ",");
            }
        }
        out.close();
        out.close();
        return out.toString();
    }

    private static void hostFunction(SourceWriter out, Function function, String terminator) {
        List<String> params = new ArrayList<>();
        List<String> arguments = new ArrayList<>();
        for (int i = 0; i < function.params().size(); i++) {
            Param param = function.params().get(i);
            params.add("ValType." + param.type().valType());
            arguments.add(fromLong(param.type(), "args[" + i + "]"));
        }
        String results =
                function.result() == null ? "" : "ValType." + function.result().valType();
        String call = "impl." + function.javaName() + "(" + String.join(", ", arguments) + ")";
        String indent = "        ";
        out.line(indent + "new HostFunction(");
        out.line(indent + "        \"" + function.module() + "\",");
        out.line(indent + "        \"" + function.name() + "\",");
        out.line(indent + "        FunctionType.of(List.of(" + String.join(", ", params) + "), List.of(" + results
                + ")),");
        if (function.result() == null) {
            out.line(indent + "        (Instance instance, long... args) -> {");
            out.line(indent + "            " + call + ";");
            out.line(indent + "            return null;");
            out.line(indent + "        })" + terminator);
        } else {
            out.line(indent + "        (Instance instance, long... args) ->");
            out.line(indent + "                new long[] {" + toLong(function.result(), call) + "})" + terminator);
        }
    }

    private static String guestExports(AbiSpec spec) {
        SourceWriter out = new SourceWriter(SIDE.packageName());
        out.line("import com.dylibso.chicory.runtime.ExportFunction;");
        out.line("import com.dylibso.chicory.runtime.Instance;");
        out.line("import com.dylibso.chicory.wasm.types.Export;");
        out.line("import com.dylibso.chicory.wasm.types.ExportSection;");
        out.line("import com.dylibso.chicory.wasm.types.ExternalType;");
        out.line("import java.util.HashSet;");
        out.line("import java.util.Set;");
        out.line();
        out.javadocMarkup("Typed calls into the guest's callbacks of " + spec.name() + "; calling an export the "
                + "module lacks returns the spec's default result.");
        out.open("public final class GuestExports");
        out.line("private final Set<String> exportedFunctions;");
        for (Function function : spec.exports()) {
            out.line("private final ExportFunction " + function.javaName() + ";");
        }
        out.line();
        out.open("public GuestExports(Instance instance)");
        out.line("this.exportedFunctions = exportedFunctionNames(instance);");
        for (Function function : spec.exports()) {
            out.line("this." + function.javaName() + " = lookUp(instance, \"" + function.name() + "\");");
        }
        out.close();
        out.line();
        out.javadocMarkup("Whether the module exports a function called {@code exportName}.");
        out.open("public boolean has(String exportName)");
        out.line("return exportedFunctions.contains(exportName);");
        out.close();
        for (Function function : spec.exports()) {
            out.line();
            out.javadoc(Signatures.javadoc(function));
            out.open("public " + Signatures.resultType(function) + " " + function.javaName() + "("
                    + Signatures.parameters(function) + ")");
            List<String> arguments = new ArrayList<>();
            for (Param param : function.params()) {
                arguments.add(toLong(param.type(), param.name()));
            }
            String call = "this." + function.javaName() + ".apply(" + String.join(", ", arguments) + ")";
            if (function.result() == null) {
                out.open("if (this." + function.javaName() + " != null)");
                out.line(call + ";");
                out.close();
            } else {
                out.open("if (this." + function.javaName() + " == null)");
                out.line("return " + Signatures.defaultResult(function) + ";");
                out.close();
                out.line("long[] results = " + call + ";");
                out.line("return " + fromLong(function.result(), "results[0]") + ";");
            }
            out.close();
        }
        out.line();
        out.open("private ExportFunction lookUp(Instance instance, String name)");
        out.line("return exportedFunctions.contains(name) ? instance.export(name) : null;");
        out.close();
        out.line();
        out.open("private static Set<String> exportedFunctionNames(Instance instance)");
        out.line("Set<String> names = new HashSet<>();");
        out.line("ExportSection section = instance.module().exportSection();");
        out.open("for (int i = 0; i < section.exportCount(); i++)");
        out.line("Export export = section.getExport(i);");
        out.open("if (export.exportType() == ExternalType.FUNCTION)");
        out.line("names.add(export.name());");
        out.close();
        out.close();
        out.line("return names;");
        out.close();
        out.close();
        return out.toString();
    }

    private static String wasiImports(AbiSpec spec) {
        SourceWriter out = new SourceWriter(SIDE.packageName());
        out.line("import java.util.List;");
        out.line();
        out.javadocMarkup("The WASI functions the proxy-wasm host links (cpp-host {@code FOR_ALL_WASI_FUNCTIONS}).");
        out.open("public final class WasiImports");
        out.javadocMarkup("{@code module.name} of each, in spec order.");
        if (spec.wasiImports().isEmpty()) {
            out.line("public static final List<String> NAMES = List.of();");
        } else {
            out.line("public static final List<String> NAMES = List.of(");
            List<Function> wasi = spec.wasiImports();
            for (int i = 0; i < wasi.size(); i++) {
                out.line("        \"" + wasi.get(i).qualifiedName() + "\"" + (i == wasi.size() - 1 ? ");" : ","));
            }
        }
        out.line();
        out.open("private WasiImports()");
        out.close();
        out.close();
        return out.toString();
    }

    /** Chicory passes every value as a {@code long}: widen {@code expression} of {@code type} to one. */
    private static String toLong(WasmType type, String expression) {
        return type == WasmType.F64 ? "Double.doubleToRawLongBits(" + expression + ")" : expression;
    }

    /** Narrow Chicory's {@code long} slot {@code expression} back to {@code type}. */
    private static String fromLong(WasmType type, String expression) {
        switch (type) {
            case I32:
                return "(int) " + expression;
            case I64:
                return expression;
            default:
                return "Double.longBitsToDouble(" + expression + ")";
        }
    }
}
