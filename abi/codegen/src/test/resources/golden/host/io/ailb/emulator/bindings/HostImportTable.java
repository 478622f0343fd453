// Generated from abi/spec/proxy-wasm-abi.json by io.ailb.abi.codegen.AbiGenerator. Do not edit.
package io.ailb.emulator.bindings;

import com.dylibso.chicory.runtime.HostFunction;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.wasm.types.FunctionType;
import com.dylibso.chicory.wasm.types.ValType;
import java.util.List;

/** Chicory host functions for every {@code env} import of mini ABI. */
public final class HostImportTable {
    private HostImportTable() {
    }

    /** One {@link HostFunction} per import, in spec order, each calling {@code impl}. */
    public static List<HostFunction> functions(HostImports impl) {
        return List.of(
                new HostFunction(
                        "env",
                        "proxy_log",
                        FunctionType.of(List.of(ValType.I32, ValType.I32, ValType.I32), List.of(ValType.I32)),
                        (Instance instance, long... args) ->
                                new long[] {impl.proxyLog((int) args[0], (int) args[1], (int) args[2])}),
                new HostFunction(
                        "env",
                        "proxy_mix_types",
                        FunctionType.of(List.of(ValType.I64, ValType.F64), List.of(ValType.F64)),
                        (Instance instance, long... args) ->
                                new long[] {Double.doubleToRawLongBits(impl.proxyMixTypes(args[0], Double.longBitsToDouble(args[1])))}),
                new HostFunction(
                        "env",
                        "proxy_notify",
                        FunctionType.of(List.of(), List.of()),
                        (Instance instance, long... args) -> {
                            impl.proxyNotify();
                            return null;
                        }));
    }
}
