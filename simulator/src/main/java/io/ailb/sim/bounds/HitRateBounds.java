package io.ailb.sim.bounds;

import io.ailb.sim.model.SimRequest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Upper bounds on the token-weighted prefix-cache hit rate any router can reach on a workload (anchors §6.1–6.2):
 *
 * <ul>
 * <li><b>infinite</b>: one unbounded cache replays the whole workload in arrival order; a request hits the longest
 * prefix of its blocks that any earlier request already had. No router on any number of instances beats it.</li>
 * <li><b>pooled LRU</b>: the same replay through one LRU cache of {@code backends × capacityTokensPerBackend} tokens
 * (leaf-first LRU over blocks, see {@link PrefixLru}). A perfect router over N partitioned caches of that size cannot
 * beat one pooled cache of the total (ignoring intra-batch effects and the replication a partition may need).</li>
 * </ul>
 *
 * <p>Token weighting: a matched block counts {@code blockTokens} tokens, except that a request's hit tokens are capped
 * by its {@code inputTokens} (its last block may be partial). Requests are replayed sorted by arrival time, ties in
 * list order; a request's own blocks are added after its lookup, and with {@code cacheOutputs} (an engine that caches
 * generated blocks) its {@link SimRequest#outputBlockIds() answer's blocks} too, as if the answer were already out:
 * still an upper bound.
 */
public final class HitRateBounds {
    private HitRateBounds() {}

    /** Hit rates of one workload: each is hit tokens / input tokens, in [0, 1]. */
    public record Result(
            int requests,
            long inputTokens,
            long infiniteHitTokens,
            long pooledHitTokens,
            int backends,
            long pooledCapacityTokens) {
        public double infiniteHitRate() {
            return inputTokens == 0 ? 0.0 : (double) infiniteHitTokens / inputTokens;
        }

        public double pooledLruHitRate() {
            return inputTokens == 0 ? 0.0 : (double) pooledHitTokens / inputTokens;
        }

        @Override
        public String toString() {
            return String.format(
                    java.util.Locale.ROOT,
                    "%d requests, %d input tokens: infinite-cache hit %.2f%%, pooled LRU (%d x %d tokens) hit %.2f%%",
                    requests,
                    inputTokens,
                    100 * infiniteHitRate(),
                    backends,
                    backends == 0 ? 0 : pooledCapacityTokens / backends,
                    100 * pooledLruHitRate());
        }
    }

    /**
     * @param workload                 the requests, in any order (replayed by arrival time)
     * @param backends                 N, the number of instances the pooled cache stands for
     * @param capacityTokensPerBackend each instance's prefix-cache capacity in tokens
     */
    public static Result compute(List<SimRequest> workload, int backends, long capacityTokensPerBackend) {
        return compute(workload, backends, capacityTokensPerBackend, false);
    }

    /** As {@link #compute(List, int, long)}; {@code cacheOutputs}: answers' blocks are cached too. */
    public static Result compute(
            List<SimRequest> workload, int backends, long capacityTokensPerBackend, boolean cacheOutputs) {
        if (backends <= 0) {
            throw new IllegalArgumentException("backends must be positive: " + backends);
        }
        if (capacityTokensPerBackend <= 0) {
            throw new IllegalArgumentException(
                    "capacityTokensPerBackend must be positive: " + capacityTokensPerBackend);
        }
        long pooledCapacity = capacityTokensPerBackend > Long.MAX_VALUE / backends
                ? Long.MAX_VALUE
                : capacityTokensPerBackend * backends;
        List<SimRequest> ordered = inArrivalOrder(workload);
        PrefixLru infinite = PrefixLru.unbounded();
        PrefixLru pooled = new PrefixLru(pooledCapacity, true, 0);
        long input = 0;
        long infiniteHits = 0;
        long pooledHits = 0;
        for (SimRequest r : ordered) {
            input += r.inputTokens();
            infiniteHits += hitTokens(r, infinite.match(r.blockIds(), r.arrivalMs()));
            pooledHits += hitTokens(r, pooled.match(r.blockIds(), r.arrivalMs()));
            remember(infinite, r, cacheOutputs);
            remember(pooled, r, cacheOutputs);
        }
        return new Result(ordered.size(), input, infiniteHits, pooledHits, backends, pooledCapacity);
    }

    /**
     * Each request's hit tokens in one unbounded cache (the infinite bound), in the order of {@code workload}.
     */
    public static long[] infiniteHitTokens(List<SimRequest> workload, boolean cacheOutputs) {
        Map<SimRequest, Long> hits = new IdentityHashMap<>();
        PrefixLru infinite = PrefixLru.unbounded();
        for (SimRequest r : inArrivalOrder(workload)) {
            hits.put(r, hitTokens(r, infinite.match(r.blockIds(), r.arrivalMs())));
            remember(infinite, r, cacheOutputs);
        }
        long[] out = new long[workload.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = hits.get(workload.get(i));
        }
        return out;
    }

    private static List<SimRequest> inArrivalOrder(List<SimRequest> workload) {
        List<SimRequest> ordered = new ArrayList<>(workload);
        ordered.sort(Comparator.comparingLong(SimRequest::arrivalMs)); // stable: ties keep list order
        return ordered;
    }

    /** Adds the request's blocks, then (when cached) its answer's, which extend its full prompt blocks. */
    private static void remember(PrefixLru cache, SimRequest r, boolean cacheOutputs) {
        cache.insert(r.blockIds(), r.blockTokens(), r.arrivalMs());
        if (cacheOutputs && !r.outputBlockIds().isEmpty()) {
            int promptFull = Math.min(r.blockIds().size(), r.inputTokens() / Math.max(1, r.blockTokens()));
            List<Long> chain = new ArrayList<>(r.blockIds().subList(0, promptFull));
            chain.addAll(r.outputBlockIds());
            cache.insert(chain, r.blockTokens(), r.arrivalMs());
        }
    }

    /** Tokens of {@code request} served from cache when its first {@code matchedBlocks} blocks are cached. */
    public static long hitTokens(SimRequest request, int matchedBlocks) {
        return Math.min((long) matchedBlocks * request.blockTokens(), request.inputTokens());
    }
}
