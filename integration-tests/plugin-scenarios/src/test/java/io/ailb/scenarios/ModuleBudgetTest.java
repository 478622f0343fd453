package io.ailb.scenarios;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.WasmArtifacts;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The product promise: the whole plugin, JSON handling included, fits in 1 MiB (Higress's Go plugin is ~10 MB). */
class ModuleBudgetTest {
    private static final long BUDGET_BYTES = 1 << 20;

    @Test
    void thePluginModuleStaysWithinOneMebibyte() throws Exception {
        Path wasm = WasmArtifacts.path("ai-load-balancer");
        long size = Files.size(wasm);
        assertTrue(size <= BUDGET_BYTES, wasm + " is " + size + " bytes, over the " + BUDGET_BYTES + " budget");
    }
}
