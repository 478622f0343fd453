package io.ailb.teavm;

import java.util.List;

/** A function type in the spec's vocabulary ({@code i32}, {@code i64}, {@code f32}, {@code f64}). */
record WasmSignature(List<String> params, List<String> results) {
    @Override
    public String toString() {
        return "(" + String.join(",", params) + ")->(" + String.join(",", results) + ")";
    }
}
