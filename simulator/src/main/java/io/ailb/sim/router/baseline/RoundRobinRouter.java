package io.ailb.sim.router.baseline;

import io.ailb.sim.model.BackendView;
import io.ailb.sim.model.ClusterView;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.router.Router;
import java.util.List;

/** A counter modulo the healthy backends (SGLang's {@code round_robin}: one atomic counter, no per-backend state). */
public final class RoundRobinRouter implements Router {
    private long next;

    @Override
    public String name() {
        return "round_robin";
    }

    @Override
    public int route(SimRequest request, ClusterView cluster) {
        List<BackendView> candidates = Candidates.of(cluster);
        BackendView chosen = candidates.get((int) (next % candidates.size()));
        next++;
        return chosen.index();
    }
}
