package io.ailb.abi.codegen;

import io.ailb.abi.codegen.AbiSpec.EnumType;
import io.ailb.abi.codegen.AbiSpec.EnumValue;
import java.util.ArrayList;
import java.util.List;

/** One final class of {@code int} constants per spec enum, the same on both sides. */
final class EnumClasses {
    private EnumClasses() {}

    static List<GeneratedFile> render(AbiSpec spec, Side side) {
        List<GeneratedFile> files = new ArrayList<>();
        for (EnumType type : spec.enums()) {
            files.add(new GeneratedFile(side.packagePath() + "/" + type.name() + ".java", render(type, side)));
        }
        return files;
    }

    private static String render(EnumType type, Side side) {
        SourceWriter out = new SourceWriter(side.packageName());
        out.javadoc(type.doc());
        out.open("public final class " + type.name());
        for (EnumValue value : type.values()) {
            out.javadoc(value.doc());
            out.line("public static final int " + value.name() + " = " + value.value() + ";");
            out.line();
        }
        out.open("private " + type.name() + "()");
        out.close();
        out.line();
        out.javadocMarkup("Returns the constant's name for {@code value}, or {@code UNKNOWN(value)}.");
        out.open("public static String nameOf(int value)");
        out.open("return switch (value)");
        for (EnumValue value : type.values()) {
            out.line("case " + value.value() + " -> \"" + value.name() + "\";");
        }
        out.line("default -> \"UNKNOWN(\" + value + \")\";");
        out.close("};");
        out.close();
        out.close();
        return out.toString();
    }
}
