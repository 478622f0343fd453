package io.ailb.abi.codegen;

import io.ailb.abi.codegen.AbiSpec.Function;
import io.ailb.abi.codegen.AbiSpec.Param;
import java.util.ArrayList;
import java.util.List;

/** Java spellings of a spec function: parameter list, argument list, result type, Javadoc. */
final class Signatures {
    private Signatures() {}

    /** {@code int level, int messageData, int messageSize}. */
    static String parameters(Function function) {
        List<String> parts = new ArrayList<>();
        for (Param param : function.params()) {
            parts.add(param.type().javaType() + " " + param.name());
        }
        return String.join(", ", parts);
    }

    /** {@code level, messageData, messageSize}. */
    static String arguments(Function function) {
        List<String> parts = new ArrayList<>();
        for (Param param : function.params()) {
            parts.add(param.name());
        }
        return String.join(", ", parts);
    }

    /** The Java result type, {@code void} when the function returns nothing. */
    static String resultType(Function function) {
        return function.result() == null ? "void" : function.result().javaType();
    }

    /** The spec's default result as a Java literal; only for functions with a result. */
    static String defaultResult(Function function) {
        return Names.literal(function.result(), function.defaultResult());
    }

    /** Javadoc paragraphs: the spec doc, the Higress mark, and for exports what an absent export means. */
    static String[] javadoc(Function function) {
        List<String> paragraphs = new ArrayList<>();
        paragraphs.add(function.doc());
        if (function.higress()) {
            paragraphs.add("Higress extension.");
        }
        if (function.required()) {
            paragraphs.add("Required: the host refuses a module without this export.");
        }
        if (function.defaultResult() != null) {
            paragraphs.add("Result assumed when the export is absent: " + defaultResult(function) + ".");
        }
        return paragraphs.toArray(new String[0]);
    }

    /** A public interface with one abstract method per function, as both sides' callback/import interfaces are. */
    static String methodInterface(String packageName, String javadocMarkup, String name, List<Function> functions) {
        SourceWriter out = new SourceWriter(packageName);
        out.javadocMarkup(javadocMarkup);
        out.open("public interface " + name);
        boolean first = true;
        for (Function function : functions) {
            if (!first) {
                out.line();
            }
            first = false;
            out.javadoc(javadoc(function));
            out.line(resultType(function) + " " + function.javaName() + "(" + parameters(function) + ");");
        }
        out.close();
        return out.toString();
    }
}
