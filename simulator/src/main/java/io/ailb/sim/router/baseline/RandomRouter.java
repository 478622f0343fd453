package io.ailb.sim.router.baseline;

import io.ailb.sim.model.ClusterView;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.router.Router;
import java.util.SplittableRandom;

/** Uniformly random healthy backend (seeded, so runs repeat). */
public final class RandomRouter implements Router {
    private final SplittableRandom random;

    public RandomRouter(long seed) {
        this.random = new SplittableRandom(seed);
    }

    @Override
    public String name() {
        return "random";
    }

    @Override
    public int route(SimRequest request, ClusterView cluster) {
        return Candidates.pick(Candidates.of(cluster), random).index();
    }
}
