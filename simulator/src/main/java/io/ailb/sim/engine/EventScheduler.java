package io.ailb.sim.engine;

/** The virtual clock and event queue components schedule their future work on. */
public interface EventScheduler {
    /** Current simulated time, ms. */
    double nowMs();

    /** Runs {@code action} at simulated time {@code timeMs} (not before now); ties run in scheduling order. */
    void at(double timeMs, Runnable action);
}
