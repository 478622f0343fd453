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

    /** The first output token of {@code request} was produced by {@code backend}. */
    default void onFirstToken(SimRequest request, int backend, long nowMs) {}

    /** {@code request} finished on {@code backend}. */
    default void onComplete(SimRequest request, int backend, long nowMs) {}
}
