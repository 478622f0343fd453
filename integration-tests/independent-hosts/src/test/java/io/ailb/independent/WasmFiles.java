package io.ailb.independent;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;

/** The .wasm files under test, as the other modules of the build write them (paths relative to this module). */
final class WasmFiles {
    static final Path STANDARD_EXAMPLE = Path.of("../../abi/example/target/wasm/standard-example.wasm");
    static final Path PROBE = Path.of("../../abi/example/target/wasm/probe.wasm");
    static final Path PRODUCT = Path.of("../../wasm-out/ai-load-balancer.wasm");
    /** What the host links: the spec's env imports (with Higress extensions) and the WASI list of proxy-wasm-cpp-host. */
    static final Path ABI_SPEC = Path.of("../../abi/spec/proxy-wasm-abi.json");

    private WasmFiles() {}

    /** Fails (not skips): in a full build the reactor builds these first, so a missing file is a broken build. */
    static Path require(Path file) {
        Path normalized = file.toAbsolutePath().normalize();
        if (!Files.isRegularFile(normalized)) {
            fail(normalized + " does not exist: it is written by "
                    + (file == PRODUCT ? "plugin-src/shell" : file == ABI_SPEC ? "hand (the ABI spec)" : "abi/example")
                    + " — build it first (cd /work/main && mvn install -DskipTests, or mvn verify)");
        }
        return normalized;
    }
}
