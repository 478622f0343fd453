package io.ailb.independent;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs {@code v8-load.js} with Node and parses its "key TAB value" lines into a {@link V8Report}. */
final class NodeV8 {
    private static final long TIMEOUT_SECONDS = 30;
    private static final Path WORK_DIR = Path.of("target", "v8");

    private final String executable;

    private NodeV8(String executable) {
        this.executable = executable;
    }

    /** Null when the executable cannot be started, so callers can skip instead of fail. */
    static NodeV8 find() {
        String executable = System.getProperty("node.executable", "node");
        try {
            Process process = new ProcessBuilder(executable, "--version")
                    .redirectErrorStream(true)
                    .start();
            process.getInputStream().readAllBytes();
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return null;
            }
            return process.exitValue() == 0 ? new NodeV8(executable) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Loads {@code wasm}; imports and exports are also checked against the ABI spec's names and signatures. */
    V8Report load(Path wasm, Path abiSpec) throws IOException, InterruptedException {
        Path script = writeScript();
        Process process = new ProcessBuilder(executable, script.toString(), wasm.toString(), abiSpec.toString())
                .redirectError(WORK_DIR.resolve("stderr-" + wasm.getFileName() + ".txt")
                        .toFile())
                .start();
        // Read before waiting: a full pipe would block node.
        byte[] stdout = process.getInputStream().readAllBytes();
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("node did not finish within " + TIMEOUT_SECONDS + " s for " + wasm);
        }
        String text = new String(stdout, UTF_8);
        if (process.exitValue() != 0) {
            throw new AssertionError("node exited with " + process.exitValue() + " for " + wasm + "; stdout:\n" + text
                    + "\nstderr: " + WORK_DIR.resolve("stderr-" + wasm.getFileName() + ".txt"));
        }
        List<String[]> lines = new ArrayList<>();
        for (String line : text.split("\n")) {
            int tab = line.indexOf('\t');
            if (tab > 0) {
                lines.add(new String[] {line.substring(0, tab), line.substring(tab + 1)});
            }
        }
        return new V8Report(wasm, lines, text);
    }

    private static Path writeScript() throws IOException {
        Files.createDirectories(WORK_DIR);
        Path script = WORK_DIR.resolve("v8-load.js");
        try (InputStream in = NodeV8.class.getResourceAsStream("/v8-load.js")) {
            if (in == null) {
                throw new IOException("v8-load.js missing from the test classpath");
            }
            Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
        }
        return script;
    }
}
