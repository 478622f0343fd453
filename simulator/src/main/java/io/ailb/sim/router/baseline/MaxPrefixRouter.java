package io.ailb.sim.router.baseline;

import io.ailb.sim.model.BackendView;
import io.ailb.sim.model.ClusterView;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.router.Router;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Pure cache affinity: the healthy backend whose entry in this router's own approximate index (the blocks it routed
 * there, {@link #DEFAULT_INDEX_BLOCKS} most recent per backend) matches the longest prefix of the request. No load
 * guard at all — the "prefix-only" policy that collapses onto one node when every request shares a first block.
 * Ties (including "no match anywhere") go to the fewest router-side in-flight requests, then at random.
 */
public final class MaxPrefixRouter implements Router {
    /** Index capacity per backend in blocks: large enough that the index itself almost never forgets. */
    public static final long DEFAULT_INDEX_BLOCKS = 1L << 20;

    private final SplittableRandom random;
    private final ApproxPrefixIndex index;
    private final Candidates.InFlight inFlight = new Candidates.InFlight();

    public MaxPrefixRouter(long seed) {
        this(seed, DEFAULT_INDEX_BLOCKS);
    }

    public MaxPrefixRouter(long seed, long indexBlocksPerBackend) {
        this.random = new SplittableRandom(seed);
        this.index = new ApproxPrefixIndex(indexBlocksPerBackend, false, 0);
    }

    @Override
    public String name() {
        return "max_prefix";
    }

    @Override
    public int route(SimRequest request, ClusterView cluster) {
        long now = cluster.nowMs();
        List<BackendView> ties = new ArrayList<>();
        int bestMatch = -1;
        int bestLoad = Integer.MAX_VALUE;
        for (BackendView b : Candidates.of(cluster)) {
            int match = index.match(b.index(), request, now);
            int load = inFlight.get(b.index());
            if (match > bestMatch || (match == bestMatch && load < bestLoad)) {
                bestMatch = match;
                bestLoad = load;
                ties.clear();
            }
            if (match == bestMatch && load == bestLoad) {
                ties.add(b);
            }
        }
        int chosen = Candidates.pick(ties, random).index();
        index.record(chosen, request, now);
        inFlight.increment(chosen);
        return chosen;
    }

    @Override
    public void onComplete(SimRequest request, int backend, long nowMs) {
        inFlight.decrement(backend);
    }
}
