package io.ailb.sim.model;

import java.util.List;

/** The instances behind one route, at the current simulated time. */
public interface ClusterView {
    List<BackendView> backends();

    long nowMs();
}
