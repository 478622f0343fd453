package io.ailb.abi.codegen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class AbiGeneratorTest {
    private static final String MINI_SPEC = "src/test/resources/mini-abi.json";

    @TempDir
    Path out;

    @Test
    void commandLineWritesTheSideAndSkipsUnchangedFilesOnTheNextRun() throws Exception {
        String[] args = {"--spec", MINI_SPEC, "--side", "host", "--out", out.toString()};

        int written = AbiGenerator.run(args);

        // HostImports, HostImportTable, GuestExports, WasiImports and the one enum of the mini spec.
        assertEquals(5, written);
        assertTrue(Files.isRegularFile(out.resolve("io/ailb/emulator/bindings/HostImportTable.java")));
        assertEquals(0, AbiGenerator.run(args));
    }

    @Test
    void unknownSideIsRejected() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> AbiGenerator.run(new String[] {"--spec", MINI_SPEC, "--side", "both", "--out", out.toString()}));
        assertEquals("--side must be guest or host, not \"both\"", e.getMessage());
    }

    @Test
    void missingOptionIsRejected() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> AbiGenerator.run(new String[] {"--spec", MINI_SPEC, "--side", "guest"}));
        assertEquals("--spec, --side and --out are all required", e.getMessage());
    }

    @Test
    void unreadableSpecNamesThePath() {
        SpecException e = assertThrows(
                SpecException.class,
                () -> AbiGenerator.run(
                        new String[] {"--spec", "no/such/spec.json", "--side", "guest", "--out", out.toString()}));
        assertTrue(e.getMessage().startsWith("cannot read ABI spec no/such/spec.json"), e.getMessage());
    }
}
