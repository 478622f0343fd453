package io.ailb.teavm.plugin;

import org.teavm.ast.InvocationExpr;
import org.teavm.ast.InvocationType;
import org.teavm.backend.wasm.intrinsics.WasmIntrinsic;
import org.teavm.backend.wasm.intrinsics.WasmIntrinsicManager;
import org.teavm.backend.wasm.model.expression.WasmExpression;
import org.teavm.backend.wasm.model.expression.WasmInt64Subtype;
import org.teavm.backend.wasm.model.expression.WasmIntBinary;
import org.teavm.backend.wasm.model.expression.WasmIntBinaryOperation;
import org.teavm.backend.wasm.model.expression.WasmIntType;
import org.teavm.backend.wasm.model.expression.WasmLoadInt64;
import org.teavm.interop.Address;
import org.teavm.model.MethodReference;

/**
 * Inlines {@code io.ailb.codec.util.ByteAccess.readLongLE(bytes, index)} as one {@code i64.load} at
 * {@code Address.ofData(bytes) + index}, so word-at-a-time loops make no call per word (V8 does not inline Wasm
 * calls). {@link ByteAccessTransformer} makes the method unmanaged, so call sites carry no GC or exception code.
 */
final class ByteAccessIntrinsic implements WasmIntrinsic {
    private static final MethodReference OF_DATA =
            new MethodReference(Address.class, "ofData", byte[].class, Address.class);

    @Override
    public boolean isApplicable(MethodReference method) {
        return method.getClassName().equals(ByteAccessTransformer.BYTE_ACCESS)
                && method.getDescriptor().equals(ByteAccessTransformer.READ_LONG_LE);
    }

    @Override
    public WasmExpression apply(InvocationExpr invocation, WasmIntrinsicManager manager) {
        InvocationExpr dataAddress = new InvocationExpr();
        dataAddress.setMethod(OF_DATA);
        dataAddress.setType(InvocationType.STATIC);
        dataAddress.getArguments().add(invocation.getArguments().get(0));
        WasmExpression address = new WasmIntBinary(
                WasmIntType.INT32,
                WasmIntBinaryOperation.ADD,
                manager.generate(dataAddress),
                manager.generate(invocation.getArguments().get(1)));
        return new WasmLoadInt64(1, address, WasmInt64Subtype.INT64);
    }
}
