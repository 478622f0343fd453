package io.ailb.sim.router.baseline;

import io.ailb.sim.model.BackendView;
import io.ailb.sim.model.ClusterView;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.router.Router;

/**
 * Reference routers with perfect knowledge of every instance's queue and cache (anchors §6.5): each request goes
 * where its estimated TTFT is lowest, greedily (per request, so not a global optimum, and no bound: the bounds are
 * {@link io.ailb.sim.bounds}). Ties → more cached prefix blocks, then fewer in flight, then list order.
 *
 * <ul>
 * <li>{@code greedy_ttft} ({@link BackendView#estimatedTtftMs}): judges every queued prefill and this one against the
 * cache as it is now, blind to the prefixes of requests still queued, so it scatters follow-ups of a conversation
 * whose previous turn has not run yet (the simulator's former "oracle").</li>
 * <li>{@code lookahead_ttft} ({@link BackendView#lookaheadTtftMs}): counts the blocks the queued requests will have
 * cached before this one runs.</li>
 * </ul>
 */
public final class TtftReferenceRouter implements Router {
    public static final String GREEDY = "greedy_ttft";
    public static final String LOOKAHEAD = "lookahead_ttft";

    private final boolean lookahead;

    public TtftReferenceRouter(boolean lookahead) {
        this.lookahead = lookahead;
    }

    @Override
    public String name() {
        return lookahead ? LOOKAHEAD : GREEDY;
    }

    @Override
    public int route(SimRequest request, ClusterView cluster) {
        BackendView best = null;
        double bestTtft = Double.POSITIVE_INFINITY;
        int bestCached = -1;
        for (BackendView b : Candidates.of(cluster)) {
            double ttft = lookahead ? b.lookaheadTtftMs(request) : b.estimatedTtftMs(request);
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
