package io.ailb.abi.codegen;

import java.util.Set;
import java.util.regex.Pattern;

/** How ABI names become Java names, and which names are legal. */
final class Names {
    static final Pattern SNAKE_CASE = Pattern.compile("[a-z][a-z0-9]*(_[a-z0-9]+)*");
    static final Pattern LOWER_CAMEL = Pattern.compile("[a-z][A-Za-z0-9]*");
    static final Pattern UPPER_CAMEL = Pattern.compile("[A-Z][A-Za-z0-9]*");
    static final Pattern CONSTANT = Pattern.compile("[A-Z][A-Z0-9]*(_[A-Z0-9]+)*");

    /** Java keywords and literals that a lower-camel name could collide with. */
    static final Set<String> JAVA_RESERVED = Set.of(
            "abstract",
            "assert",
            "boolean",
            "break",
            "byte",
            "case",
            "catch",
            "char",
            "class",
            "const",
            "continue",
            "default",
            "do",
            "double",
            "else",
            "enum",
            "extends",
            "false",
            "final",
            "finally",
            "float",
            "for",
            "goto",
            "if",
            "implements",
            "import",
            "instanceof",
            "int",
            "interface",
            "long",
            "native",
            "new",
            "null",
            "package",
            "private",
            "protected",
            "public",
            "return",
            "short",
            "static",
            "strictfp",
            "super",
            "switch",
            "synchronized",
            "this",
            "throw",
            "throws",
            "transient",
            "true",
            "try",
            "void",
            "volatile",
            "while",
            "var",
            "yield",
            "record");

    private Names() {}

    /** {@code proxy_get_header_map_value} → {@code proxyGetHeaderMapValue}; digits stay as they are. */
    static String lowerCamel(String snakeCase) {
        StringBuilder out = new StringBuilder(snakeCase.length());
        boolean upperNext = false;
        for (int i = 0; i < snakeCase.length(); i++) {
            char c = snakeCase.charAt(i);
            if (c == '_') {
                upperNext = true;
            } else {
                out.append(upperNext ? Character.toUpperCase(c) : c);
                upperNext = false;
            }
        }
        return out.toString();
    }

    /** A Java literal of {@code type} for a spec number. */
    static String literal(WasmType type, Number value) {
        switch (type) {
            case I32:
                return Integer.toString(value.intValue());
            case I64:
                return value.longValue() + "L";
            default:
                return Double.toString(value.doubleValue());
        }
    }
}
