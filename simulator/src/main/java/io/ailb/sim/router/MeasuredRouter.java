package io.ailb.sim.router;

import io.ailb.sim.report.RunResult;

/** A router that reports what running it cost (the plugin through the .wasm). */
public interface MeasuredRouter extends Router {
    /** Gateways (Higress instances) the router ran on. */
    int gateways();

    /** Cost so far: decision wall time, Redis traffic, fallbacks. */
    RunResult.PluginStats pluginStats();
}
