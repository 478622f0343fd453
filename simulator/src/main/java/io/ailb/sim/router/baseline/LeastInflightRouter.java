package io.ailb.sim.router.baseline;

import io.ailb.sim.model.BackendView;
import io.ailb.sim.model.ClusterView;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.router.Router;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The healthy backend with the fewest requests this router sent and has not seen complete (counted router-side: +1 at
 * route, −1 at {@link #onComplete}); ties at random. What a gateway can do without any backend signal.
 */
public final class LeastInflightRouter implements Router {
    private final SplittableRandom random;
    private final Candidates.InFlight inFlight = new Candidates.InFlight();

    public LeastInflightRouter(long seed) {
        this.random = new SplittableRandom(seed);
    }

    @Override
    public String name() {
        return "least_inflight";
    }

    @Override
    public int route(SimRequest request, ClusterView cluster) {
        List<BackendView> ties = new ArrayList<>();
        int best = Integer.MAX_VALUE;
        for (BackendView b : Candidates.of(cluster)) {
            int load = inFlight.get(b.index());
            if (load < best) {
                best = load;
                ties.clear();
            }
            if (load == best) {
                ties.add(b);
            }
        }
        int chosen = Candidates.pick(ties, random).index();
        inFlight.increment(chosen);
        return chosen;
    }

    @Override
    public void onComplete(SimRequest request, int backend, long nowMs) {
        inFlight.decrement(backend);
    }

    /** Router-side in-flight count of {@code backend}. */
    public int inFlight(int backend) {
        return inFlight.get(backend);
    }
}
