package io.ailb.proxywasm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ailb.proxywasm.bindings.WasmResult;
import org.junit.jupiter.api.Test;

class ProxyWasmExceptionTest {

    @Test
    void namesTheCallAndTheResult() {
        ProxyWasmException e = new ProxyWasmException("proxy_http_call", WasmResult.BAD_ARGUMENT);

        assertEquals("proxy_http_call failed: BAD_ARGUMENT", e.getMessage());
        assertEquals("proxy_http_call", e.call());
        assertEquals(WasmResult.BAD_ARGUMENT, e.result());
        assertEquals("BAD_ARGUMENT", e.resultName());
    }
}
