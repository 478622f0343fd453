package io.ailb.proxywasm.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class WasmAbiTest {

    @Test
    void propertyPathSegmentsAreJoinedWithNul() {
        assertArrayEquals(
                "request\0path".getBytes(StandardCharsets.UTF_8), WasmAbi.joinPath(List.of("request", "path")));
        assertArrayEquals("route_name".getBytes(StandardCharsets.UTF_8), WasmAbi.joinPath(List.of("route_name")));
    }
}
