package io.ailb.independent;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The .wasm files under test. Each is a Maven artifact of the module that builds it; this module depends on them and
 * its pom passes the resolved files as system properties {@code ailb.wasm.<name>}, as for the emulator's
 * {@code WasmArtifacts} (which this module cannot use: its host pins another Chicory).
 */
final class WasmFiles {
    static final String STANDARD_EXAMPLE = "standard-example";
    static final String PROBE = "probe";
    static final String PRODUCT = "ai-load-balancer";
    /** What the host links: the spec's env imports (with Higress extensions) and the WASI list of proxy-wasm-cpp-host. */
    static final Path ABI_SPEC = Path.of("../../abi/spec/proxy-wasm-abi.json");

    private WasmFiles() {}

    /** Module {@code name}; fails (not skips): the build resolves it before these tests, so a miss is a broken build. */
    static Path require(String name) {
        String property = "ailb.wasm." + name;
        String value = System.getProperty(property, "");
        if (value.isBlank()) {
            fail("system property " + property + " is not set: the Maven build passes the resolved " + name
                    + ".wasm; outside Maven pass -D" + property + "=/path/to/" + name + ".wasm");
        }
        return require(Path.of(value));
    }

    /** Fails (not skips) when {@code file} does not exist. */
    static Path require(Path file) {
        Path normalized = file.toAbsolutePath().normalize();
        if (!Files.isRegularFile(normalized)) {
            fail(normalized + " does not exist");
        }
        return normalized;
    }
}
