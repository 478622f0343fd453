package io.ailb.sim.bench;

import io.ailb.emulator.WasmArtifacts;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The command-line options both cost benches read alike: the module, the table's file, the body sizes, the sampling
 * budget and the guard against a hung guest. Each bench sets its own defaults and adds its own options.
 */
abstract class CostBenchOptions {
    /** Null until parsed: the module this build made ({@link WasmArtifacts}). */
    Path wasm;

    Path doc = PluginCostBench.root().resolve("docs/benchmarks.md");
    int[] sizes;
    double warmUpSeconds;
    int warmUpMax = 2000;
    double measureSeconds;
    int minSamples;
    int maxSamples = 2000;
    double hangSeconds;
    String commandLine;

    CostBenchOptions(int[] defaultSizes, String defaultCommandLine) {
        this.sizes = defaultSizes;
        this.commandLine = defaultCommandLine;
    }

    /** Reads {@code flag} and its {@code value} when the flag is one of these options; false when it is not. */
    final boolean readShared(String flag, String value) {
        switch (flag) {
            case "--wasm" -> wasm = Path.of(value);
            case "--doc" -> doc = Path.of(value);
            case "--sizes" -> sizes = Arrays.stream(value.split(","))
                    .mapToInt(PluginCostBench::parseSize)
                    .toArray();
            case "--warmup-seconds" -> warmUpSeconds = Double.parseDouble(value);
            case "--warmup-max" -> warmUpMax = Integer.parseInt(value);
            case "--measure-seconds" -> measureSeconds = Double.parseDouble(value);
            case "--min-samples" -> minSamples = Integer.parseInt(value);
            case "--max-samples" -> maxSamples = Integer.parseInt(value);
            case "--hang-seconds" -> hangSeconds = Double.parseDouble(value);
            case "--command" -> commandLine = value;
            default -> {
                return false;
            }
        }
        return true;
    }
}
