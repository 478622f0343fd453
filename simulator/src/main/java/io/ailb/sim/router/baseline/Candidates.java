package io.ailb.sim.router.baseline;

import io.ailb.sim.model.BackendView;
import io.ailb.sim.model.ClusterView;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Shared by the baselines: which backends may be chosen, and seeded tie-breaking; the simulation judges a choice's
 * lookahead regret against the same backends.
 */
public final class Candidates {
    private Candidates() {}

    /** The healthy backends; every backend when none is healthy (as a gateway fails open). */
    public static List<BackendView> of(ClusterView cluster) {
        List<BackendView> all = cluster.backends();
        if (all.isEmpty()) {
            throw new IllegalStateException("the cluster has no backends");
        }
        List<BackendView> healthy = new ArrayList<>(all.size());
        for (BackendView b : all) {
            if (b.healthy()) {
                healthy.add(b);
            }
        }
        return healthy.isEmpty() ? all : healthy;
    }

    /** One of {@code ties} (non-empty), uniformly. */
    static BackendView pick(List<BackendView> ties, SplittableRandom random) {
        return ties.size() == 1 ? ties.get(0) : ties.get(random.nextInt(ties.size()));
    }

    /** Requests routed and not completed per backend index, as a router counts them itself. */
    static final class InFlight {
        private int[] counts = new int[8];

        int get(int backend) {
            return backend < counts.length ? counts[backend] : 0;
        }

        void increment(int backend) {
            if (backend >= counts.length) {
                counts = java.util.Arrays.copyOf(counts, Math.max(backend + 1, counts.length * 2));
            }
            counts[backend]++;
        }

        void decrement(int backend) {
            if (backend < counts.length && counts[backend] > 0) {
                counts[backend]--;
            }
        }

        /** The one of {@code candidates} (non-empty) with the fewest in flight, the first in list order on ties. */
        BackendView leastLoaded(List<BackendView> candidates) {
            BackendView best = candidates.get(0);
            for (BackendView b : candidates) {
                if (get(b.index()) < get(best.index())) {
                    best = b;
                }
            }
            return best;
        }
    }
}
