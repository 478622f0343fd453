package io.ailb.example;

import com.dylibso.chicory.runtime.HostFunction;
import com.dylibso.chicory.runtime.ImportFunction;
import com.dylibso.chicory.runtime.ImportValues;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.wasi.WasiOptions;
import com.dylibso.chicory.wasi.WasiPreview1;
import com.dylibso.chicory.wasm.Parser;
import com.dylibso.chicory.wasm.WasmModule;
import com.dylibso.chicory.wasm.types.FunctionImport;
import io.ailb.codec.map.ProxyMaps;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Just enough of a proxy-wasm host to smoke-test the example modules on Chicory: logs, request headers, plugin
 * configuration, local replies, metric ids. Any other import throws naming itself. The real emulator is abi/emulator.
 */
final class TinyHost {
    private static final int OK = 0;
    private static final int NOT_FOUND = 1;

    final List<String> logs = new ArrayList<>();
    final Map<String, String> requestHeaders = new LinkedHashMap<>();
    final Map<String, String> addedHeaders = new LinkedHashMap<>();
    byte[] pluginConfiguration = new byte[0];
    int localStatus;
    String localBody;
    private int nextMetricId = 4;
    private final Instance instance;

    TinyHost(Path wasm) {
        WasmModule module = Parser.parse(wasm);
        WasiPreview1 wasi = WasiPreview1.builder()
                .withOptions(WasiOptions.builder().inheritSystem().build())
                .build();
        List<ImportFunction> functions = new ArrayList<>(List.of(wasi.toHostFunctions()));
        module.importSection().stream()
                .filter(i -> i.module().equals("env"))
                .map(i -> (FunctionImport) i)
                .forEach(i -> functions.add(new HostFunction(
                        "env",
                        i.name(),
                        module.typeSection().getType(i.typeIndex()),
                        (inst, args) -> call(i.name(), args))));
        instance = Instance.builder(module)
                .withImportValues(
                        ImportValues.builder().withFunctions(functions).build())
                .withStart(false)
                .build();
    }

    long export(String name, long... args) {
        long[] result = instance.export(name).apply(args);
        return result == null || result.length == 0 ? 0 : result[0];
    }

    private long[] call(String name, long[] args) {
        int[] a = new int[args.length];
        for (int i = 0; i < args.length; i++) {
            a[i] = (int) args[i];
        }
        return new long[] {dispatch(name, a)};
    }

    private int dispatch(String name, int[] a) {
        switch (name) {
            case "proxy_log":
                logs.add(a[0] + " " + text(a[1], a[2]));
                return OK;
            case "proxy_get_log_level":
                instance.memory().writeI32(a[0], 0);
                return OK;
            case "proxy_get_buffer_bytes":
                return a[0] == 7 ? copyOut(pluginConfiguration, a[3], a[4]) : NOT_FOUND;
            case "proxy_get_header_map_value":
                String value = requestHeaders.get(text(a[1], a[2]));
                return value == null ? NOT_FOUND : copyOut(value.getBytes(StandardCharsets.UTF_8), a[3], a[4]);
            case "proxy_get_header_map_pairs":
                return copyOut(ProxyMaps.encode(new ArrayList<>(requestHeaders.entrySet())), a[1], a[2]);
            case "proxy_add_header_map_value":
                addedHeaders.put(text(a[1], a[2]), text(a[3], a[4]));
                return OK;
            case "proxy_send_local_response":
                localStatus = a[0];
                localBody = text(a[3], a[4]);
                return OK;
            case "proxy_define_metric":
                instance.memory().writeI32(a[3], nextMetricId);
                nextMetricId += 4;
                return OK;
            default:
                throw new UnsupportedOperationException("TinyHost does not implement " + name);
        }
    }

    /** The host side of the memory protocol: ask the guest for a buffer, fill it, report it through the out-params. */
    private int copyOut(byte[] data, int pointerOut, int sizeOut) {
        int pointer = (int) export("proxy_on_memory_allocate", data.length);
        instance.memory().write(pointer, data);
        instance.memory().writeI32(pointerOut, pointer);
        instance.memory().writeI32(sizeOut, data.length);
        return OK;
    }

    private String text(int pointer, int size) {
        return new String(instance.memory().readBytes(pointer, size), StandardCharsets.UTF_8);
    }
}
