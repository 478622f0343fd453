package io.ailb.sim.router;

import io.ailb.sim.model.ClusterView;
import io.ailb.sim.model.SimRequest;

/**
 * A routing policy under comparison: the plugin through its .wasm, or a baseline implemented here. Every router in
 * one run sees the same arrivals and identical backends.
 */
public interface Router {
    /** As shown in the result tables. */
    String name();

    /** The index of the backend {@code request} goes to. Called at the request's arrival time. */
    int route(SimRequest request, ClusterView cluster);

    /**
     * The prompt tokens this router counted as cached on the backend its last {@link #route} call chose for
     * {@code request}, read right after that call; -1 when it does not say. Set against what the backend had cached,
     * it shows where a router's view of the caches was wrong.
     */
    default long cachedTokensCountedOn(SimRequest request) {
        return -1;
    }

    /** The first output token of {@code request} was produced by {@code backend}. */
    default void onFirstToken(SimRequest request, int backend, long nowMs) {}

    /** {@code request} finished on {@code backend}. */
    default void onComplete(SimRequest request, int backend, long nowMs) {}
}
