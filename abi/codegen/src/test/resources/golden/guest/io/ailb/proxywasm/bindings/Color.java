// Generated from abi/spec/proxy-wasm-abi.json by io.ailb.abi.codegen.AbiGenerator. Do not edit.
package io.ailb.proxywasm.bindings;

/** Colours &lt;for&gt; the golden test &amp; nothing else. */
public final class Color {
    /** Red. */
    public static final int RED = 0;

    public static final int DEEP_BLUE = 7;

    private Color() {
    }

    /** Returns the constant's name for {@code value}, or {@code UNKNOWN(value)}. */
    public static String nameOf(int value) {
        return switch (value) {
            case 0 -> "RED";
            case 7 -> "DEEP_BLUE";
            default -> "UNKNOWN(" + value + ")";
        };
    }
}
