package io.ailb.sim.router.baseline;

import io.ailb.sim.model.BackendView;
import io.ailb.sim.model.ClusterView;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.router.Router;
import java.util.List;

/**
 * SGLang router's {@code cache_aware} policy (sgl-model-gateway {@code policies/cache_aware.rs}), with the CLI
 * defaults {@code --cache-threshold 0.3 --balance-abs-threshold 64 --balance-rel-threshold 1.5}.
 *
 * <ol>
 * <li>Load = this router's own in-flight count per worker (+1 at route, −1 at {@link #onComplete}).</li>
 * <li>Imbalanced iff {@code max_load − min_load > balance_abs} and {@code max_load > balance_rel × min_load} over
 * the healthy workers: then the min-load worker, cache affinity ignored (the tree is still updated).</li>
 * <li>Otherwise prefix match against an approximate radix tree per worker built only from this router's routing
 * history. SGLang's HTTP mode keys the tree on characters; here it is keyed on the workload's prefix-chained block
 * ids (the gRPC token tree is the same idea, page-aligned), so a node is one block and {@code match_rate} is
 * measured in <b>tokens</b>: {@code min(matched_blocks × blockTokens, inputTokens) / inputTokens} (tokens stand in
 * for characters). If {@code match_rate > cache_threshold} → the worker with the longest match; else → the worker
 * with the <b>smallest tree</b> (the original design's "most available cache capacity"; later versions use min load
 * there). Ties: fewer in-flight, then list order.</li>
 * <li>Each worker's tree is bounded by {@code max_tree_size} with least-recently-used leaves evicted first. SGLang
 * evicts in a background pass every {@code eviction_interval_secs}; here eviction happens at insertion, so the bound
 * always holds. Size is counted in tokens; the default {@code max_tree_size} 2^26 characters is taken as 2^26 / 4
 * tokens (~4 characters per token).</li>
 * </ol>
 */
public final class SglangCacheAwareRouter implements Router {
    public static final double DEFAULT_CACHE_THRESHOLD = 0.3;
    public static final int DEFAULT_BALANCE_ABS_THRESHOLD = 64;
    public static final double DEFAULT_BALANCE_REL_THRESHOLD = 1.5;
    /** 2^26 characters (the CLI default {@code --max-tree-size}) at ~4 characters per token. */
    public static final long DEFAULT_MAX_TREE_TOKENS = (1L << 26) / 4;

    private final double cacheThreshold;
    private final int balanceAbsThreshold;
    private final double balanceRelThreshold;
    private final ApproxPrefixIndex trees;
    private final Candidates.InFlight inFlight = new Candidates.InFlight();

    /** The documented defaults. */
    public SglangCacheAwareRouter() {
        this(DEFAULT_CACHE_THRESHOLD, DEFAULT_BALANCE_ABS_THRESHOLD, DEFAULT_BALANCE_REL_THRESHOLD,
                DEFAULT_MAX_TREE_TOKENS);
    }

    public SglangCacheAwareRouter(double cacheThreshold, int balanceAbsThreshold, double balanceRelThreshold,
            long maxTreeTokens) {
        this.cacheThreshold = cacheThreshold;
        this.balanceAbsThreshold = balanceAbsThreshold;
        this.balanceRelThreshold = balanceRelThreshold;
        this.trees = new ApproxPrefixIndex(maxTreeTokens, true, 0);
    }

    @Override
    public String name() {
        return "sglang_cache_aware";
    }

    @Override
    public int route(SimRequest request, ClusterView cluster) {
        long now = cluster.nowMs();
        List<BackendView> candidates = Candidates.of(cluster);
        int maxLoad = Integer.MIN_VALUE;
        int minLoad = Integer.MAX_VALUE;
        for (BackendView b : candidates) {
            int load = inFlight.get(b.index());
            maxLoad = Math.max(maxLoad, load);
            minLoad = Math.min(minLoad, load);
        }
        boolean imbalanced = (maxLoad - minLoad) > balanceAbsThreshold && maxLoad > balanceRelThreshold * minLoad;
        BackendView chosen;
        if (imbalanced) {
            chosen = argMin(candidates, b -> inFlight.get(b.index()));
        } else {
            BackendView longest = null;
            int longestMatch = -1;
            for (BackendView b : candidates) {
                int match = trees.match(b.index(), request, now);
                if (match > longestMatch
                        || (match == longestMatch && inFlight.get(b.index()) < inFlight.get(longest.index()))) {
                    longest = b;
                    longestMatch = match;
                }
            }
            long matchedTokens = Math.min((long) longestMatch * request.blockTokens(), request.inputTokens());
            double matchRate = request.inputTokens() <= 0 ? 0.0 : (double) matchedTokens / request.inputTokens();
            if (matchRate > cacheThreshold) {
                chosen = longest;
            } else {
                chosen = argMin(candidates, b -> trees.size(b.index()));
            }
        }
        trees.record(chosen.index(), request, now);
        inFlight.increment(chosen.index());
        return chosen.index();
    }

    /** Smallest key; ties → fewer in-flight, then list order. */
    private BackendView argMin(List<BackendView> candidates, java.util.function.ToLongFunction<BackendView> key) {
        BackendView best = null;
        for (BackendView b : candidates) {
            if (best == null) {
                best = b;
                continue;
            }
            long k = key.applyAsLong(b);
            long bk = key.applyAsLong(best);
            if (k < bk || (k == bk && inFlight.get(b.index()) < inFlight.get(best.index()))) {
                best = b;
            }
        }
        return best;
    }

    @Override
    public void onComplete(SimRequest request, int backend, long nowMs) {
        inFlight.decrement(backend);
    }

    /** Router-side in-flight count of {@code backend}. */
    public int load(int backend) {
        return inFlight.get(backend);
    }

    /** Tokens in {@code backend}'s approximate tree. */
    public long treeTokens(int backend) {
        return trees.size(backend);
    }
}
