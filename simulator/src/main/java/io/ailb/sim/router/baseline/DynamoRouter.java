package io.ailb.sim.router.baseline;

import io.ailb.sim.model.BackendView;
import io.ailb.sim.model.ClusterView;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.router.Router;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * NVIDIA Dynamo's KV-aware router ({@code --router-mode kv}): per worker
 * {@code cost = overlap_score_weight × prefill_blocks + decode_blocks}, lowest wins ({@code --router-temperature 0}:
 * deterministic argmin; exact ties at random), {@code --kv-overlap-score-weight} 1.0.
 *
 * <ul>
 * <li>prefill_blocks = (prefill tokens this router sent to the worker whose first token it has not yet seen + the
 * request's uncached tokens on that worker) / block size — Dynamo's "potential prefill", predicted at routing and
 * released at the first token.</li>
 * <li>decode_blocks = distinct KV blocks of the requests this router has in flight on the worker (a block shared by
 * two in-flight requests counts once), released at completion — Dynamo tracks these router-side
 * (ActiveSequences), not from engine metrics.</li>
 * <li>overlap (cached blocks): {@link Overlap#APPROXIMATE} = Dynamo's {@code --no-kv-events} ApproxKvIndexer: the
 * blocks this router routed to the worker are assumed cached for 120 s after their last routing.
 * {@link Overlap#KV_EVENTS} = Dynamo's default mode, where engines publish every block stored/removed: modelled as
 * exact knowledge, {@link BackendView#cachedPrefixBlocks}.</li>
 * </ul>
 * Doc example (w = 1): workers (prefill 8, decode 10) → 18, (5, 5) → 10 ✓, (2, 9) → 11.
 */
public final class DynamoRouter implements Router {
    public static final double DEFAULT_OVERLAP_WEIGHT = 1.0;
    /** ApproxKvIndexer's fixed lifetime of a routed block. */
    public static final long APPROX_TTL_MS = 120_000;

    public enum Overlap {
        APPROXIMATE, KV_EVENTS
    }

    /** One candidate's terms. */
    public record Cost(int backend, int overlapBlocks, double prefillBlocks, double decodeBlocks, double cost) {
    }

    private static final class Active {
        final int backend;
        final List<Long> blocks;
        final long prefillTokens;
        final int blockTokens;
        boolean prefillDone;

        Active(int backend, List<Long> blocks, long prefillTokens, int blockTokens) {
            this.backend = backend;
            this.blocks = blocks;
            this.prefillTokens = prefillTokens;
            this.blockTokens = blockTokens;
        }
    }

    private static final class WorkerLoad {
        double pendingPrefillBlocks;
        final Map<Long, Integer> blockRefs = new HashMap<>();
    }

    private final Overlap overlap;
    private final double overlapWeight;
    private final SplittableRandom random;
    private final ApproxPrefixIndex index = new ApproxPrefixIndex(Long.MAX_VALUE, false, APPROX_TTL_MS);
    private final Map<Long, Active> active = new HashMap<>();
    private final Map<Integer, WorkerLoad> loads = new HashMap<>();

    public DynamoRouter(long seed, Overlap overlap) {
        this(seed, overlap, DEFAULT_OVERLAP_WEIGHT);
    }

    public DynamoRouter(long seed, Overlap overlap, double overlapWeight) {
        this.overlap = overlap;
        this.overlapWeight = overlapWeight;
        this.random = new SplittableRandom(seed);
    }

    @Override
    public String name() {
        return overlap == Overlap.APPROXIMATE ? "dynamo" : "dynamo_kv_events";
    }

    /** {@code overlapWeight × prefillBlocks + decodeBlocks}. */
    public static double cost(double prefillBlocks, double decodeBlocks, double overlapWeight) {
        return overlapWeight * prefillBlocks + decodeBlocks;
    }

    /** The position of the lowest cost (first on ties), as in the documented example. */
    public static int argMin(double[] prefillBlocks, double[] decodeBlocks, double overlapWeight) {
        int best = -1;
        double bestCost = Double.POSITIVE_INFINITY;
        for (int i = 0; i < prefillBlocks.length; i++) {
            double c = cost(prefillBlocks[i], decodeBlocks[i], overlapWeight);
            if (c < bestCost) {
                bestCost = c;
                best = i;
            }
        }
        return best;
    }

    @Override
    public int route(SimRequest request, ClusterView cluster) {
        List<BackendView> candidates = Candidates.of(cluster);
        List<Cost> costs = costs(request, cluster);
        double best = Double.POSITIVE_INFINITY;
        List<BackendView> ties = new ArrayList<>();
        List<Cost> tieCosts = new ArrayList<>();
        for (int i = 0; i < costs.size(); i++) {
            double c = costs.get(i).cost();
            if (c < best) {
                best = c;
                ties.clear();
                tieCosts.clear();
            }
            if (c == best) {
                ties.add(candidates.get(i));
                tieCosts.add(costs.get(i));
            }
        }
        int pick = ties.size() == 1 ? 0 : random.nextInt(ties.size());
        int chosen = ties.get(pick).index();
        long uncachedTokens = uncachedTokens(request, tieCosts.get(pick).overlapBlocks());
        if (overlap == Overlap.APPROXIMATE) {
            index.record(chosen, request, cluster.nowMs());
        }
        Active a = new Active(chosen, request.blockIds(), uncachedTokens, Math.max(1, request.blockTokens()));
        Active previous = active.put(request.id(), a);
        if (previous != null) { // the same id routed again before completing: forget the first
            release(previous, !previous.prefillDone);
        }
        WorkerLoad load = loads.computeIfAbsent(chosen, k -> new WorkerLoad());
        load.pendingPrefillBlocks += (double) uncachedTokens / a.blockTokens;
        for (Long id : a.blocks) {
            load.blockRefs.merge(id, 1, Integer::sum);
        }
        return chosen;
    }

    /** The cost terms of the candidates (healthy backends, or all when none is), in the cluster's order. */
    public List<Cost> costs(SimRequest request, ClusterView cluster) {
        List<BackendView> candidates = Candidates.of(cluster);
        int blockTokens = Math.max(1, request.blockTokens());
        List<Cost> costs = new ArrayList<>(candidates.size());
        for (BackendView b : candidates) {
            int cached = overlap == Overlap.APPROXIMATE ? index.match(b.index(), request, cluster.nowMs())
                    : Math.max(0, b.cachedPrefixBlocks(request));
            WorkerLoad load = loads.get(b.index());
            double pending = load == null ? 0 : load.pendingPrefillBlocks;
            double prefill = pending + (double) uncachedTokens(request, cached) / blockTokens;
            double decode = load == null ? 0 : load.blockRefs.size();
            costs.add(new Cost(b.index(), cached, prefill, decode, cost(prefill, decode, overlapWeight)));
        }
        return costs;
    }

    private static long uncachedTokens(SimRequest request, int cachedBlocks) {
        return Math.max(0, request.inputTokens() - (long) cachedBlocks * request.blockTokens());
    }

    @Override
    public void onFirstToken(SimRequest request, int backend, long nowMs) {
        Active a = active.get(request.id());
        if (a != null && !a.prefillDone) {
            a.prefillDone = true;
            WorkerLoad load = loads.get(a.backend);
            load.pendingPrefillBlocks = Math.max(0, load.pendingPrefillBlocks - (double) a.prefillTokens / a.blockTokens);
        }
    }

    @Override
    public void onComplete(SimRequest request, int backend, long nowMs) {
        Active a = active.remove(request.id());
        if (a != null) {
            release(a, !a.prefillDone);
        }
    }

    private void release(Active a, boolean prefillToo) {
        WorkerLoad load = loads.get(a.backend);
        if (prefillToo) {
            a.prefillDone = true;
            load.pendingPrefillBlocks = Math.max(0, load.pendingPrefillBlocks - (double) a.prefillTokens / a.blockTokens);
        }
        for (Long id : a.blocks) {
            load.blockRefs.computeIfPresent(id, (k, v) -> v == 1 ? null : v - 1);
        }
    }
}
