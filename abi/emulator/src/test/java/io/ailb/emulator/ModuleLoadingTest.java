package io.ailb.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.bindings.DataAction;
import io.ailb.emulator.bindings.HeaderAction;
import io.ailb.emulator.bindings.LogLevel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Linking, ABI-version handling and traps, on hand-assembled modules. */
@Timeout(60)
final class ModuleLoadingTest {

    @Test
    void anUnknownEnvImportFailsLoadingAndIsNamed() {
        byte[] wasm = new TinyWasm().withImport("env", "proxy_does_not_exist").build();
        EmulatorException error = assertThrows(EmulatorException.class, () -> WasmPlugin.fromBytes("tiny", wasm));
        assertTrue(error.getMessage().contains("missing import: env.proxy_does_not_exist"), error.getMessage());
    }

    @Test
    void aWasiFunctionEnvoyDoesNotLinkFailsLoadingAndIsNamed() {
        byte[] wasm = new TinyWasm()
                .withImport("wasi_snapshot_preview1", "sock_accept")
                .build();
        EmulatorException error = assertThrows(EmulatorException.class, () -> WasmPlugin.fromBytes("tiny", wasm));
        assertTrue(error.getMessage().contains("wasi_snapshot_preview1.sock_accept"), error.getMessage());
    }

    @Test
    void aModuleWithoutAnAbiVersionExportIsRefused() {
        byte[] wasm = new TinyWasm().withAbiExport("not_an_abi_marker").build();
        EmulatorException error = assertThrows(EmulatorException.class, () -> WasmPlugin.fromBytes("tiny", wasm));
        assertTrue(error.getMessage().contains("ABI version"), error.getMessage());
    }

    @Test
    void aTrapNamesTheExportAndQuotesTheLastLogLines() {
        PluginVm vm = Gateway.builder(WasmPlugin.fromBytes("tiny", new TinyWasm().build()))
                .build()
                .startVm();
        HttpStream stream = vm.newHttpStream();
        GuestTrapException trap = assertThrows(
                GuestTrapException.class, () -> stream.sendRequestHeaders(HeaderMap.of(":path", "/"), true));
        assertTrue(trap.getMessage().contains("proxy_on_request_headers"), trap.getMessage());
        assertTrue(trap.getMessage().contains(TinyWasm.MARKER), trap.getMessage());
        assertEquals("proxy_on_request_headers(context 2)", trap.export());
    }

    @Test
    void aTrappedVmIsDeadAndLaterStreamsGetWasmFailStream() {
        PluginVm vm = Gateway.builder(WasmPlugin.fromBytes("tiny", new TinyWasm().build()))
                .build()
                .startVm();
        assertThrows(GuestTrapException.class, () -> vm.newHttpStream()
                .sendRequestHeaders(HeaderMap.of(":path", "/"), true));
        HttpStream later = vm.newHttpStream();
        later.sendRequestHeaders(HeaderMap.of(":path", "/"), true);
        assertFalse(vm.isAlive());
        assertEquals(503, later.localReply().orElseThrow().status());
        assertEquals("wasm_fail_stream", later.localReply().orElseThrow().details());
        assertEquals(1, vm.logs(LogLevel.INFO).size(), "the dead VM was not called again");
    }

    @Test
    void stopIterationOnRequestHeadersIsKeptUnderAbi0_2_100() {
        PluginVm vm = Gateway.builder(
                        WasmPlugin.fromBytes("tiny", new TinyWasm().returning(1).build()))
                .build()
                .startVm();
        int action = vm.newHttpStream().sendRequestHeaders(HeaderMap.of(":path", "/"), false);
        assertEquals(HeaderAction.STOP_ITERATION, action);
    }

    @Test
    void stopIterationOnRequestHeadersBecomesStopAllUnderAbi0_2_1() {
        byte[] wasm = new TinyWasm()
                .withAbiExport("proxy_abi_version_0_2_1")
                .returning(1)
                .build();
        PluginVm vm =
                Gateway.builder(WasmPlugin.fromBytes("tiny", wasm)).build().startVm();
        HttpStream stream = vm.newHttpStream();
        assertEquals(
                HeaderAction.STOP_ALL_ITERATION_AND_WATERMARK,
                stream.sendRequestHeaders(HeaderMap.of(":path", "/"), false));
    }

    @Test
    void afterStopAllEnvoyBuffersBodyChunksWithoutCallingTheFilter() {
        byte[] wasm = new TinyWasm()
                .withAbiExport("proxy_abi_version_0_2_1")
                .returning(1)
                .build();
        PluginVm vm =
                Gateway.builder(WasmPlugin.fromBytes("tiny", wasm)).build().startVm();
        HttpStream stream = vm.newHttpStream();
        stream.sendRequestHeaders(HeaderMap.of(":path", "/"), false);
        assertEquals(DataAction.STOP_ITERATION_AND_BUFFER, stream.sendRequestBody("held by Envoy", false));
        assertTrue(stream.isRequestPaused());
    }

    @Test
    void outOfRangeHeaderStatusesAreClamped() {
        PluginVm vm = Gateway.builder(
                        WasmPlugin.fromBytes("tiny", new TinyWasm().returning(9).build()))
                .build()
                .startVm();
        assertEquals(
                HeaderAction.STOP_ALL_ITERATION_AND_WATERMARK,
                vm.newHttpStream().sendRequestHeaders(HeaderMap.of(":path", "/"), true));
    }
}
