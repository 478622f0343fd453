package io.ailb.teavm;

import io.ailb.abi.codegen.AbiSpec;
import io.ailb.abi.codegen.WasmType;
import java.util.List;

/** A function type in the spec's vocabulary ({@code i32}, {@code i64}, {@code f32}, {@code f64}). */
record WasmSignature(List<String> params, List<String> results) {

    /** The signature the spec declares for {@code function}. */
    static WasmSignature of(AbiSpec.Function function) {
        List<String> params =
                function.params().stream().map(param -> param.type().wasmName()).toList();
        WasmType result = function.result();
        return new WasmSignature(params, result == null ? List.of() : List.of(result.wasmName()));
    }

    @Override
    public String toString() {
        return "(" + String.join(",", params) + ")->(" + String.join(",", results) + ")";
    }
}
