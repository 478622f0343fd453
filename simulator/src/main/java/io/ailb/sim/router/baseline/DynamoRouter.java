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
 * NVIDIA Dynamo's KV-aware router ({@code --router-mode kv}), as in {@code ai-dynamo/dynamo}
 * {@code lib/llm/src/kv_router/scheduler.rs} @ db19bd2 ({@code DefaultWorkerSelector}) with the load accounting of
 * {@code lib/llm/src/kv_router/sequence.rs} @ 581ee33 and the defaults of {@code lib/kv-router/src/config.rs} @ 870abbd
 * ({@code overlap_score_weight} 1.0, {@code router_temperature} 0.0, {@code router_ttl_secs} 120,
 * {@code router_max_tree_size} 2^20, {@code router_track_output_blocks} false): per worker
 * {@code cost = overlap_score_weight × prefill_blocks + decode_blocks}, lowest wins. Temperature 0 keeps every
 * worker at the minimum; among those the smallest tree (blocks the indexer holds for the worker) wins, at random when
 * the tree sizes are all equal.
 *
 * <ul>
 * <li>prefill_blocks = (prefill tokens this router sent to the worker whose first token it has not yet seen + the
 * request's uncached tokens on that worker) / block size: {@code potential_prefill_tokens}, predicted at routing and
 * released at the first token ({@code mark_prefill_completed}).</li>
 * <li>decode_blocks = the distinct KV blocks the worker would hold with this request added: the blocks of the
 * requests this router has in flight there (a block shared by two counts once) united with the request's own blocks
 * ({@code potential_blocks = active_blocks + new_blocks}), released at completion. Output blocks are not tracked
 * ({@code router_track_output_blocks} false).</li>
 * <li>overlap (cached blocks): {@link Overlap#APPROXIMATE} = {@code --no-kv-events}, the ApproxKvIndexer: the blocks
 * this router routed to the worker are assumed cached for 120 s after their last routing, at most 2^20 blocks per
 * worker (least recently routed dropped first; upstream prunes to 80 % when over). {@link Overlap#KV_EVENTS} =
 * Dynamo's default ({@code use_kv_events} true), engines publish every block stored/removed: modelled as exact
 * knowledge, {@link BackendView#cachedPrefixBlocks}, tree size {@link BackendView#cachedBlocks}.</li>
 * </ul>
 * Doc example (w = 1): workers (prefill 8, decode 10) → 18, (5, 5) → 10 ✓, (2, 9) → 11.
 */
public final class DynamoRouter implements Router {
    public static final double DEFAULT_OVERLAP_WEIGHT = 1.0;
    /** ApproxKvIndexer's fixed lifetime of a routed block. */
    public static final long APPROX_TTL_MS = 120_000;
    /** {@code router_max_tree_size}: blocks the approximate indexer holds per worker. */
    public static final long APPROX_MAX_TREE_BLOCKS = 1L << 20;

    public enum Overlap {
        APPROXIMATE,
        KV_EVENTS
    }

    /** One candidate's terms. */
    public record Cost(int backend, int overlapBlocks, double prefillBlocks, double decodeBlocks, double cost) {}

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
    private final ApproxPrefixIndex index = new ApproxPrefixIndex(APPROX_MAX_TREE_BLOCKS, false, APPROX_TTL_MS);
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
        for (Cost c : costs) {
            best = Math.min(best, c.cost());
        }
        List<Integer> ties = new ArrayList<>();
        long smallestTree = Long.MAX_VALUE;
        for (int i = 0; i < costs.size(); i++) {
            if (costs.get(i).cost() != best) {
                continue;
            }
            long tree = treeSize(candidates.get(i), cluster.nowMs());
            if (tree < smallestTree) {
                smallestTree = tree;
                ties.clear();
            }
            if (tree == smallestTree) {
                ties.add(i);
            }
        }
        int pick = ties.get(ties.size() == 1 ? 0 : random.nextInt(ties.size()));
        int chosen = candidates.get(pick).index();
        long uncachedTokens = uncachedTokens(request, costs.get(pick).overlapBlocks());
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

    private long treeSize(BackendView b, long nowMs) {
        return overlap == Overlap.APPROXIMATE ? index.size(b.index()) : b.cachedBlocks();
    }

    /** The cost terms of the candidates (healthy backends, or all when none is), in the cluster's order. */
    public List<Cost> costs(SimRequest request, ClusterView cluster) {
        List<BackendView> candidates = Candidates.of(cluster);
        int blockTokens = Math.max(1, request.blockTokens());
        List<Cost> costs = new ArrayList<>(candidates.size());
        for (BackendView b : candidates) {
            int cached = overlap == Overlap.APPROXIMATE
                    ? index.match(b.index(), request, cluster.nowMs())
                    : Math.max(0, b.cachedPrefixBlocks(request));
            WorkerLoad load = loads.get(b.index());
            double pending = load == null ? 0 : load.pendingPrefillBlocks;
            double prefill = pending + (double) uncachedTokens(request, cached) / blockTokens;
            double decode = load == null ? request.blockIds().size() : load.blockRefs.size() + newBlocks(load, request);
            costs.add(new Cost(b.index(), cached, prefill, decode, cost(prefill, decode, overlapWeight)));
        }
        return costs;
    }

    /** The request's blocks the worker's in-flight requests do not hold yet. */
    private static int newBlocks(WorkerLoad load, SimRequest request) {
        int added = 0;
        for (Long id : request.blockIds()) {
            if (!load.blockRefs.containsKey(id)) {
                added++;
            }
        }
        return added;
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
            load.pendingPrefillBlocks =
                    Math.max(0, load.pendingPrefillBlocks - (double) a.prefillTokens / a.blockTokens);
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
            load.pendingPrefillBlocks =
                    Math.max(0, load.pendingPrefillBlocks - (double) a.prefillTokens / a.blockTokens);
        }
        for (Long id : a.blocks) {
            load.blockRefs.computeIfPresent(id, (k, v) -> v == 1 ? null : v - 1);
        }
    }
}
