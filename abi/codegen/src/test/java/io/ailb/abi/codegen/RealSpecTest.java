package io.ailb.abi.codegen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.abi.codegen.AbiSpec.EnumType;
import io.ailb.abi.codegen.AbiSpec.EnumValue;
import io.ailb.abi.codegen.AbiSpec.Function;
import io.ailb.abi.codegen.AbiSpec.Param;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The project's spec says what Higress links: checked here against the facts read in cpp-host and the spec. */
final class RealSpecTest {
    static final Path REAL_SPEC = Path.of("../spec/proxy-wasm-abi.json");

    private static AbiSpec spec;

    @BeforeAll
    static void readSpec() throws SpecException {
        spec = SpecReader.read(REAL_SPEC);
    }

    @Test
    void higressImportsHaveTheirHostSignatures() {
        assertSignature(spec.imports(), "proxy_redis_init", "i32 i32 i32 i32 i32 i32 i32", "i32", true);
        assertSignature(spec.imports(), "proxy_redis_call", "i32 i32 i32 i32 i32", "i32", true);
        assertSignature(spec.imports(), "proxy_get_upstream_hosts", "i32 i32", "i32", true);
        assertSignature(spec.imports(), "proxy_set_upstream_override_host", "i32 i32", "i32", true);
        assertSignature(spec.imports(), "proxy_inject_encoded_data_to_filter_chain", "i32 i32 i32", "i32", true);
    }

    @Test
    void onlyTheHigressExtensionsAreMarkedHigress() {
        Set<String> higress = spec.imports().stream()
                .filter(Function::higress)
                .map(Function::name)
                .collect(Collectors.toSet());
        assertEquals(
                Set.of(
                        "proxy_redis_init",
                        "proxy_redis_call",
                        "proxy_get_upstream_hosts",
                        "proxy_set_upstream_override_host",
                        "proxy_inject_encoded_data_to_filter_chain"),
                higress);
        Set<String> higressExports = spec.exports().stream()
                .filter(Function::higress)
                .map(Function::name)
                .collect(Collectors.toSet());
        assertEquals(Set.of("proxy_on_redis_call_response"), higressExports);
    }

    @Test
    void redisReplyCallbackHasFourI32ParametersAndNoResult() {
        Function callback =
                assertSignature(spec.exports(), "proxy_on_redis_call_response", "i32 i32 i32 i32", null, true);
        assertEquals(
                List.of("contextId", "token", "status", "responseSize"),
                callback.params().stream().map(Param::name).toList());
    }

    @Test
    void everyStandardImportOfTheAbiIsThereWithItsArity() {
        // Arity of each proxy-wasm 0.2.1 host function, all returning an i32 status.
        String[] arities = {
            "proxy_log 3",
            "proxy_get_log_level 1",
            "proxy_get_current_time_nanoseconds 1",
            "proxy_set_tick_period_milliseconds 1",
            "proxy_get_buffer_bytes 5",
            "proxy_get_buffer_status 3",
            "proxy_set_buffer_bytes 5",
            "proxy_get_header_map_pairs 3",
            "proxy_set_header_map_pairs 3",
            "proxy_get_header_map_size 2",
            "proxy_get_header_map_value 5",
            "proxy_replace_header_map_value 5",
            "proxy_remove_header_map_value 3",
            "proxy_add_header_map_value 5",
            "proxy_get_property 4",
            "proxy_set_property 4",
            "proxy_send_local_response 8",
            "proxy_continue_stream 1",
            "proxy_close_stream 1",
            "proxy_http_call 10",
            "proxy_grpc_call 12",
            "proxy_grpc_stream 9",
            "proxy_grpc_send 4",
            "proxy_grpc_cancel 1",
            "proxy_grpc_close 1",
            "proxy_get_status 3",
            "proxy_set_shared_data 5",
            "proxy_get_shared_data 5",
            "proxy_register_shared_queue 3",
            "proxy_resolve_shared_queue 5",
            "proxy_enqueue_shared_queue 3",
            "proxy_dequeue_shared_queue 3",
            "proxy_define_metric 4",
            "proxy_increment_metric 2",
            "proxy_record_metric 2",
            "proxy_get_metric 2",
            "proxy_set_effective_context 1",
            "proxy_done 0",
            "proxy_call_foreign_function 6"
        };
        for (String arity : arities) {
            String[] parts = arity.split(" ");
            Function function = find(spec.imports(), parts[0]);
            assertEquals(Integer.parseInt(parts[1]), function.params().size(), parts[0]);
            assertEquals(WasmType.I32, function.result(), parts[0]);
            assertFalse(function.higress(), parts[0]);
        }
        assertEquals(arities.length + 5, spec.imports().size());
    }

    @Test
    void metricValuesAreI64() {
        assertSignature(spec.imports(), "proxy_increment_metric", "i32 i64", "i32", false);
        assertSignature(spec.imports(), "proxy_record_metric", "i32 i64", "i32", false);
    }

    @Test
    void exportsAssumeTheHostDefaultsWhenAbsent() {
        assertEquals(1, find(spec.exports(), "proxy_on_vm_start").defaultResult());
        assertEquals(1, find(spec.exports(), "proxy_on_configure").defaultResult());
        assertEquals(1, find(spec.exports(), "proxy_on_done").defaultResult());
        assertEquals(0, find(spec.exports(), "proxy_on_new_connection").defaultResult());
        for (String callback : List.of(
                "proxy_on_request_headers",
                "proxy_on_request_body",
                "proxy_on_request_trailers",
                "proxy_on_response_headers",
                "proxy_on_response_body",
                "proxy_on_response_trailers",
                "proxy_on_downstream_data",
                "proxy_on_upstream_data")) {
            assertEquals(0, find(spec.exports(), callback).defaultResult(), callback);
        }
        assertNull(find(spec.exports(), "proxy_on_log").defaultResult());
    }

    @Test
    void onlyMemoryAllocationIsARequiredExport() {
        List<String> required = spec.exports().stream()
                .filter(Function::required)
                .map(Function::name)
                .toList();
        assertEquals(List.of("proxy_on_memory_allocate"), required);
    }

    @Test
    void abiVersionMarkerIsHigress0_2_100() {
        assertEquals("proxy_abi_version_0_2_100", spec.abiVersionExport());
    }

    @Test
    void enumsCarryTheAbiCodes() {
        assertEquals("REDIS_CALL_RESPONSE", name(enumType("BufferType"), 9));
        assertEquals("PLUGIN_CONFIGURATION", name(enumType("BufferType"), 7));
        assertEquals("STOP_ALL_ITERATION_AND_WATERMARK", name(enumType("HeaderAction"), 4));
        assertEquals("STOP_ITERATION_NO_BUFFER", name(enumType("DataAction"), 3));
        assertEquals("NETWORK_ERROR", name(enumType("RedisStatus"), 1));
        assertEquals("INTERNAL_FAILURE", name(enumType("WasmResult"), 10));
        assertEquals("CRITICAL", name(enumType("LogLevel"), 5));
        assertEquals(
                List.of(
                        "WasmResult",
                        "HeaderAction",
                        "DataAction",
                        "BufferType",
                        "MapType",
                        "StreamType",
                        "LogLevel",
                        "MetricType",
                        "PeerType",
                        "RedisStatus"),
                spec.enums().stream().map(EnumType::name).toList());
    }

    @Test
    void wasiImportsAreWhatCppHostRegisters() {
        List<String> names =
                spec.wasiImports().stream().map(Function::qualifiedName).toList();
        List<String> expected = new ArrayList<>();
        for (String name : List.of(
                "fd_write",
                "fd_read",
                "fd_seek",
                "fd_close",
                "fd_fdstat_get",
                "fd_fdstat_set_flags",
                "environ_get",
                "environ_sizes_get",
                "args_get",
                "args_sizes_get",
                "clock_time_get",
                "random_get",
                "sched_yield",
                "poll_oneoff",
                "proc_exit",
                "path_open",
                "fd_prestat_get",
                "fd_prestat_dir_name",
                "path_filestat_get",
                "fd_filestat_get")) {
            expected.add("wasi_snapshot_preview1." + name);
        }
        assertEquals(expected, names);
        assertSignature(spec.wasiImports(), "clock_time_get", "i32 i64 i32", "i32", false);
        assertSignature(spec.wasiImports(), "fd_seek", "i32 i64 i32 i32", "i32", false);
        assertSignature(spec.wasiImports(), "proc_exit", "i32", null, false);
    }

    private static Function assertSignature(
            List<Function> functions, String name, String params, String result, boolean higress) {
        Function function = find(functions, name);
        assertEquals(
                params,
                function.params().stream().map(p -> p.type().wasmName()).collect(Collectors.joining(" ")),
                name);
        assertEquals(
                result, function.result() == null ? null : function.result().wasmName(), name);
        assertEquals(higress, function.higress(), name);
        return function;
    }

    private static Function find(List<Function> functions, String name) {
        Function found = functions.stream()
                .filter(f -> f.name().equals(name))
                .findFirst()
                .orElse(null);
        assertNotNull(found, name + " is missing");
        return found;
    }

    private static EnumType enumType(String name) {
        EnumType found = spec.enums().stream()
                .filter(e -> e.name().equals(name))
                .findFirst()
                .orElse(null);
        assertNotNull(found, name + " is missing");
        return found;
    }

    private static String name(EnumType type, int value) {
        EnumValue found = type.values().stream()
                .filter(v -> v.value() == value)
                .findFirst()
                .orElse(null);
        assertTrue(found != null, type.name() + " has no " + value);
        return found.name();
    }
}
