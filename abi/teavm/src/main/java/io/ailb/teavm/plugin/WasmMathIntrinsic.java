package io.ailb.teavm.plugin;

import java.util.Map;
import org.teavm.ast.InvocationExpr;
import org.teavm.backend.wasm.intrinsics.WasmIntrinsic;
import org.teavm.backend.wasm.intrinsics.WasmIntrinsicManager;
import org.teavm.backend.wasm.model.expression.WasmExpression;
import org.teavm.backend.wasm.model.expression.WasmFloatType;
import org.teavm.backend.wasm.model.expression.WasmFloatUnary;
import org.teavm.backend.wasm.model.expression.WasmFloatUnaryOperation;
import org.teavm.model.MethodReference;

/** Compiles {@code Math.floor/ceil/sqrt(double)} to the Wasm instructions of the same name instead of imports. */
final class WasmMathIntrinsic implements WasmIntrinsic {
    private static final Map<String, WasmFloatUnaryOperation> OPERATIONS = Map.of(
            "floor", WasmFloatUnaryOperation.FLOOR,
            "ceil", WasmFloatUnaryOperation.CEIL,
            "sqrt", WasmFloatUnaryOperation.SQRT);
    private static final String DOUBLE_TO_DOUBLE = "(D)D";

    @Override
    public boolean isApplicable(MethodReference method) {
        return method.getClassName().equals("java.lang.Math")
                && OPERATIONS.containsKey(method.getName())
                && method.getDescriptor().signatureToString().equals(DOUBLE_TO_DOUBLE);
    }

    @Override
    public WasmExpression apply(InvocationExpr invocation, WasmIntrinsicManager manager) {
        WasmExpression operand = manager.generate(invocation.getArguments().get(0));
        return new WasmFloatUnary(
                WasmFloatType.FLOAT64, OPERATIONS.get(invocation.getMethod().getName()), operand);
    }
}
