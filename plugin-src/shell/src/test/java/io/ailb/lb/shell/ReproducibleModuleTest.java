package io.ailb.lb.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same classes give the same module: the build's {@code ai-load-balancer.wasm} (compiled by Maven from the
 * compile classpath) is compared with a second build from this test's classpath in a JVM with another garbage
 * collector, one core and sequential identity hashes. Each of these changed the module's bytes before
 * {@code BuildWasm} compiled with constant identity hashes (io.ailb.teavm.ConstantIdentityHashes).
 */
class ReproducibleModuleTest {

    @Test
    void aSecondBuildInADifferentJvmGivesTheSameBytes(@TempDir Path dir) throws Exception {
        Path built = Path.of(System.getProperty("ailb.wasm.ai-load-balancer"));
        Path rebuilt = dir.resolve("ai-load-balancer.wasm");
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC",
                "-XX:ActiveProcessorCount=1",
                "-XX:+UnlockExperimentalVMOptions",
                "-XX:hashCode=3",
                "-classpath",
                System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                "io.ailb.teavm.BuildWasm",
                "--main",
                System.getProperty("ailb.wasm.main"),
                "--out",
                rebuilt.toString(),
                "--spec",
                System.getProperty("ailb.abi.spec"),
                "--opt",
                System.getProperty("ailb.wasm.opt"));

        Process build = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, build.waitFor(), output);
        assertFalse(
                output.contains("WARNING"), "BuildWasm compiles in a JVM of its own with constant hashes: " + output);

        assertEquals(Files.size(built), Files.size(rebuilt), "module size");
        assertEquals(sha256(built), sha256(rebuilt), "module bytes");
    }

    private static String sha256(Path file) throws IOException, NoSuchAlgorithmException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }
}
