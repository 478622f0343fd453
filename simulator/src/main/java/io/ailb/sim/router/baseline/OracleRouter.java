package io.ailb.sim.router.baseline;

import io.ailb.sim.model.BackendView;
import io.ailb.sim.model.ClusterView;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.router.Router;

/**
 * The reference oracle (anchors §6.5): greedy minimum estimated TTFT with perfect knowledge of every instance's
 * queue and cache, {@link BackendView#estimatedTtftMs}. Greedy per request, so not a global optimum; ties → more
 * cached prefix blocks, then fewer in flight, then list order.
 */
public final class OracleRouter implements Router {
    @Override
    public String name() {
        return "oracle";
    }

    @Override
    public int route(SimRequest request, ClusterView cluster) {
        BackendView best = null;
        double bestTtft = Double.POSITIVE_INFINITY;
        int bestCached = -1;
        for (BackendView b : Candidates.of(cluster)) {
            double ttft = b.estimatedTtftMs(request);
            if (Double.isNaN(ttft)) {
                ttft = Double.POSITIVE_INFINITY;
            }
            if (best == null || ttft < bestTtft) {
                best = b;
                bestTtft = ttft;
                bestCached = -1;
                continue;
            }
            if (ttft == bestTtft) {
                if (bestCached < 0) {
                    bestCached = best.cachedPrefixBlocks(request);
                }
                int cached = b.cachedPrefixBlocks(request);
                if (cached > bestCached || (cached == bestCached && b.inFlight() < best.inFlight())) {
                    best = b;
                    bestCached = cached;
                }
            }
        }
        return best.index();
    }
}
