package io.ailb.sim.router.baseline;

import io.ailb.sim.model.BackendView;
import io.ailb.sim.model.ClusterView;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.router.Router;
import java.util.List;

/**
 * SGLang router's {@code cache_aware} policy, as in {@code sgl-project/sglang}
 * {@code sgl-model-gateway/src/policies/cache_aware.rs} @ b93974f (tree: {@code policies/tree.rs} @ 24ce7f6), with
 * the CLI defaults ({@code router_args.py}): {@code --cache-threshold 0.3 --balance-abs-threshold 64
 * --balance-rel-threshold 1.5 --max-tree-size 2^26}.
 *
 * <ol>
 * <li>Load = this router's own in-flight count per worker (+1 at route, −1 at {@link #onComplete}).</li>
 * <li>Imbalanced iff {@code max_load − min_load > balance_abs} and {@code max_load > balance_rel × min_load}, min and
 * max over <b>all</b> workers (unhealthy ones included, as upstream folds over every worker): then the healthy
 * worker with the least load (the first such in list order: Rust's {@code min_by_key}); cache affinity ignored, the
 * tree still updated.</li>
 * <li>Otherwise the request is matched against one approximate radix tree of every worker's routing history. Upstream
 * keys it on characters; here on the workload's prefix-chained block ids (a node is one block), and
 * {@code match_rate = min(matched_blocks × blockTokens, inputTokens) / inputTokens} (tokens stand in for
 * characters). Above {@code cache_threshold}: a tenant of the deepest matched node. Upstream returns the <b>first
 * tenant in that node's map</b> regardless of load; the map's order is fixed per node but arbitrary (a hash order),
 * modelled as a seeded hash of (node, worker). At or below the threshold: {@link LowMatch#MIN_LOAD} (upstream since
 * PR #14650, merged 2025-12-08: least load, first in list order on ties) or {@link LowMatch#SMALLEST_TREE} (the rule
 * before it, {@code sgl-router/src/policies/cache_aware.rs} @ b6f2064: {@code get_smallest_tenant()}, here among the
 * healthy workers, ties in the tenant map's fixed arbitrary order).</li>
 * <li>When the deepest node's first tenant is unhealthy the first healthy worker gets the request and the tree is not
 * updated (upstream's fallback).</li>
 * <li>Each worker's tree is bounded by {@code max_tree_size} with least-recently-used leaves evicted first. Upstream
 * evicts in a background pass every {@code eviction_interval_secs}; here at insertion, so the bound always holds. Size
 * in tokens: 2^26 characters at ~4 characters per token.</li>
 * </ol>
 * Not modelled: sglang PR #33138 (2026-07-31), which breaks min-load ties at random on a miss.
 */
public final class SglangCacheAwareRouter implements Router {
    public static final String NAME = "sglang_cache_aware";
    public static final String NAME_2025 = "sglang_cache_aware_2025";
    public static final double DEFAULT_CACHE_THRESHOLD = 0.3;
    public static final int DEFAULT_BALANCE_ABS_THRESHOLD = 64;
    public static final double DEFAULT_BALANCE_REL_THRESHOLD = 1.5;
    /** 2^26 characters (the CLI default {@code --max-tree-size}) at ~4 characters per token. */
    public static final long DEFAULT_MAX_TREE_TOKENS = (1L << 26) / 4;

    /** Where a request whose match rate is at or below the threshold goes. */
    public enum LowMatch {
        /** The least-loaded healthy worker (upstream since PR #14650). */
        MIN_LOAD,
        /** The worker with the smallest tree (before PR #14650). */
        SMALLEST_TREE
    }

    private final LowMatch lowMatch;
    private final double cacheThreshold;
    private final int balanceAbsThreshold;
    private final double balanceRelThreshold;
    private final long seed;
    private final ApproxPrefixIndex trees;
    private final Candidates.InFlight inFlight = new Candidates.InFlight();

    /** The documented defaults. */
    public SglangCacheAwareRouter(long seed, LowMatch lowMatch) {
        this(
                seed,
                lowMatch,
                DEFAULT_CACHE_THRESHOLD,
                DEFAULT_BALANCE_ABS_THRESHOLD,
                DEFAULT_BALANCE_REL_THRESHOLD,
                DEFAULT_MAX_TREE_TOKENS);
    }

    public SglangCacheAwareRouter(
            long seed,
            LowMatch lowMatch,
            double cacheThreshold,
            int balanceAbsThreshold,
            double balanceRelThreshold,
            long maxTreeTokens) {
        this.seed = seed;
        this.lowMatch = lowMatch;
        this.cacheThreshold = cacheThreshold;
        this.balanceAbsThreshold = balanceAbsThreshold;
        this.balanceRelThreshold = balanceRelThreshold;
        this.trees = new ApproxPrefixIndex(maxTreeTokens, true, 0);
    }

    @Override
    public String name() {
        return lowMatch == LowMatch.MIN_LOAD ? NAME : NAME_2025;
    }

    @Override
    public int route(SimRequest request, ClusterView cluster) {
        long now = cluster.nowMs();
        List<BackendView> all = cluster.backends();
        List<BackendView> healthy = Candidates.of(cluster);
        int maxLoad = Integer.MIN_VALUE;
        int minLoad = Integer.MAX_VALUE;
        for (BackendView b : all) {
            int load = inFlight.get(b.index());
            maxLoad = Math.max(maxLoad, load);
            minLoad = Math.min(minLoad, load);
        }
        boolean imbalanced = (maxLoad - minLoad) > balanceAbsThreshold && maxLoad > balanceRelThreshold * minLoad;
        if (imbalanced) {
            return send(inFlight.leastLoaded(healthy), request, now, true);
        }
        int longest = 0;
        for (BackendView b : all) {
            longest = Math.max(longest, trees.match(b.index(), request, now));
        }
        BackendView selected;
        if (matchRate(request, longest) > cacheThreshold) {
            selected = firstTenant(all, request, longest, now);
        } else if (lowMatch == LowMatch.MIN_LOAD) {
            selected = inFlight.leastLoaded(healthy);
        } else {
            selected = smallestTree(healthy);
        }
        if (!selected.healthy()) {
            return send(healthy.get(0), request, now, false);
        }
        return send(selected, request, now, true);
    }

    private int send(BackendView chosen, SimRequest request, long now, boolean updateTree) {
        if (updateTree) {
            trees.record(chosen.index(), request, now);
        }
        inFlight.increment(chosen.index());
        return chosen.index();
    }

    static double matchRate(SimRequest request, int matchedBlocks) {
        long matchedTokens = Math.min((long) matchedBlocks * request.blockTokens(), request.inputTokens());
        return request.inputTokens() <= 0 ? 0.0 : (double) matchedTokens / request.inputTokens();
    }

    /** The tenant the deepest matched node's map yields first: a fixed, load-blind order per node. */
    private BackendView firstTenant(List<BackendView> all, SimRequest request, int depth, long now) {
        long node = request.blockIds().get(depth - 1);
        BackendView first = null;
        long firstKey = 0;
        for (BackendView b : all) {
            if (trees.match(b.index(), request, now) == depth) {
                long key = ApproxPrefixIndex.tenantOrder(seed ^ node, b.index());
                if (first == null || Long.compareUnsigned(key, firstKey) < 0) {
                    first = b;
                    firstKey = key;
                }
            }
        }
        return first;
    }

    /** Smallest tree; ties in the tenant map's fixed order. */
    private BackendView smallestTree(List<BackendView> candidates) {
        BackendView best = null;
        for (BackendView b : candidates) {
            if (best == null) {
                best = b;
                continue;
            }
            long size = trees.size(b.index());
            long bestSize = trees.size(best.index());
            if (size < bestSize
                    || (size == bestSize
                            && Long.compareUnsigned(
                                            ApproxPrefixIndex.tenantOrder(seed, b.index()),
                                            ApproxPrefixIndex.tenantOrder(seed, best.index()))
                                    < 0)) {
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
