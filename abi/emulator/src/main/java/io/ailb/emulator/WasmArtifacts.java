package io.ailb.emulator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds a {@code .wasm} module this build made. Each one is a Maven artifact of type {@code wasm} of the module that
 * builds it ({@code ailb-shell} → {@code ai-load-balancer}, {@code ailb-example} → {@code probe},
 * {@code standard-example}); a module that runs one depends on that artifact, and its pom hands the resolved file to
 * its tests and tools as system property {@code ailb.wasm.<name>}. Set the property yourself to run another build
 * (e.g. {@code -Dailb.wasm.ai-load-balancer=/path/to/a-build-with-names.wasm}).
 */
public final class WasmArtifacts {
    private static final String PROPERTY_PREFIX = "ailb.wasm.";

    private WasmArtifacts() {}

    /** The system property naming module {@code name}, e.g. {@code ailb.wasm.probe}. */
    public static String property(String name) {
        return PROPERTY_PREFIX + name;
    }

    /**
     * The file of module {@code name} ({@code ai-load-balancer}, {@code probe}, …).
     *
     * @throws EmulatorException if the property is not set or names no file
     */
    public static Path path(String name) {
        String property = property(name);
        String value = System.getProperty(property, "");
        if (value.isBlank()) {
            throw new EmulatorException("system property " + property + " is not set: it names " + name
                    + ".wasm, which the Maven build resolves from its module and passes to tests and exec:java;"
                    + " outside Maven pass -D" + property + "=/path/to/" + name + ".wasm");
        }
        Path file = Path.of(value);
        if (!Files.isRegularFile(file)) {
            throw new EmulatorException(property + "=" + value + " is not a file: build it first"
                    + " (mvn -DskipTests install for tools run with exec:java)");
        }
        return file;
    }

    /**
     * Module {@code name} read, checked and compiled ({@link WasmPlugin#fromBytes}), named {@code <name>.wasm} in
     * messages and reports whatever its file is called (an installed artifact's file carries Maven coordinates).
     */
    public static WasmPlugin load(String name) {
        Path file = path(name);
        try {
            return WasmPlugin.fromBytes(name + ".wasm", Files.readAllBytes(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }
}
