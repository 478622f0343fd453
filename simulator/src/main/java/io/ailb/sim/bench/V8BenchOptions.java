package io.ailb.sim.bench;

import java.nio.file.Path;

/**
 * What the two V8 benches read alike beyond {@link CostBenchOptions}: the Node executable, a work folder for the host
 * script and bodies, a quick mode that leaves the table's file alone unless {@code --doc} is given, and the host's
 * sampling limits.
 */
abstract class V8BenchOptions extends CostBenchOptions {
    boolean docGiven;
    Path workDir;
    String node = "node";
    int warmUpMin = 3;
    boolean quick;

    V8BenchOptions(int[] defaultSizes, String defaultCommandLine, String workFolder) {
        super(defaultSizes, defaultCommandLine);
        this.workDir = PluginCostBench.root().resolve("simulator/target/" + workFolder);
    }

    /** Like {@link #readShared}, plus {@code --doc} (remembered as given), {@code --work-dir} and {@code --node}. */
    final boolean readV8(String flag, String value) {
        switch (flag) {
            case "--doc" -> {
                doc = Path.of(value);
                docGiven = true;
            }
            case "--work-dir" -> workDir = Path.of(value);
            case "--node" -> node = value;
            default -> {
                return readShared(flag, value);
            }
        }
        return true;
    }

    V8Host.Limits limits() {
        return new V8Host.Limits(warmUpSeconds, warmUpMin, warmUpMax, measureSeconds, minSamples, maxSamples);
    }

    /** Where the table goes: nowhere ("-") for a quick run unless asked. */
    Path target() {
        return quick && !docGiven ? Path.of("-") : doc;
    }

    /** The Node host, or exits with a message naming {@code bench} when Node cannot be started. */
    V8Host nodeOrExit(String bench) {
        V8Host host = V8Host.find(node).orElse(null);
        if (host == null) {
            System.err.println(bench + " needs Node.js (18 or later) to run the module in V8, but '" + node
                    + "' cannot be started. Install Node.js or pass --node /path/to/node.");
            System.exit(1);
        }
        return host;
    }
}
