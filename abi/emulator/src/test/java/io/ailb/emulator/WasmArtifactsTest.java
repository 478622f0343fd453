package io.ailb.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WasmArtifactsTest {
    /** A module name no build sets, so the test owns its property. */
    private static final String NAME = "located-by-test";

    @AfterEach
    void clear() {
        System.clearProperty(WasmArtifacts.property(NAME));
    }

    @Test
    void theSystemPropertyNamesTheModuleFile(@TempDir Path dir) throws Exception {
        Path wasm = Files.write(dir.resolve("m.wasm"), new byte[] {0, 'a', 's', 'm'});
        System.setProperty("ailb.wasm." + NAME, wasm.toString());
        assertEquals(wasm, WasmArtifacts.path(NAME));
    }

    @Test
    void aMissingPropertyIsNamedInTheError() {
        EmulatorException error = assertThrows(EmulatorException.class, () -> WasmArtifacts.path(NAME));
        assertTrue(
                error.getMessage().startsWith("system property ailb.wasm.located-by-test is not set"),
                error.getMessage());
    }

    @Test
    void aPropertyNamingNoFileIsAnError(@TempDir Path dir) {
        System.setProperty(
                WasmArtifacts.property(NAME), dir.resolve("absent.wasm").toString());
        EmulatorException error = assertThrows(EmulatorException.class, () -> WasmArtifacts.path(NAME));
        assertTrue(error.getMessage().contains("absent.wasm is not a file"), error.getMessage());
    }

    @Test
    void theBuildPassesTheProbeToTheseTests() {
        assertTrue(Files.isRegularFile(WasmArtifacts.path("probe")));
    }
}
