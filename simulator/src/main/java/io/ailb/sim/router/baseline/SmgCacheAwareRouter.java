package io.ailb.sim.router.baseline;

import io.ailb.sim.model.BackendView;
import io.ailb.sim.model.ClusterView;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.router.Router;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The newer SGLang gateway's {@code cache_aware} (SMG, {@code smg-project/smg}): the rule of PR #2161
 * ("pressure-select among matched cache tenants with a per-request load gate", merged 2026-08-16), as read in
 * {@code model_gateway/src/policies/cache_aware.rs} @ 04def28, with the CLI defaults of
 * {@code docs/reference/configuration.md} (0.3 / 64 / 1.5, the same as SGLang's).
 *
 * <ol>
 * <li>The same approximate tree and match rate as {@link SglangCacheAwareRouter}. A hit (match rate above
 * {@code cache_threshold}) yields <b>every</b> tenant of the deepest matched node, up to
 * {@value #MATCHED_TENANTS_CAP} (the first ones in the node's fixed map order): all of them hold the prefix.</li>
 * <li>Per-request load gate instead of the fleet-wide imbalance switch: a candidate "requires spill" when its
 * in-flight count exceeds both {@code balance_rel × mean} and {@code mean + balance_abs}, the mean over the healthy
 * workers. Among the matched healthy tenants that pass the gate, the least loaded wins. If every matched tenant is
 * gated, the request spills to the least loaded healthy worker that passes the gate (all healthy workers if none
 * does), and the tree records the spill target, so a hot prefix gains a replica.</li>
 * <li>A miss (match rate at or below the threshold) goes to the least-loaded healthy worker.</li>
 * </ol>
 * Ties on load: the first in list order. Not modelled: later SMG versions score the final choice by LeastLoad's
 * expected wait from backend load polls instead of the gateway's in-flight count; the KV-usage triggers
 * ({@code balance_token_usage_threshold}, off by default) and {@code overlap_decay} / temperature (off by default).
 */
public final class SmgCacheAwareRouter implements Router {
    public static final String NAME = "smg_cache_aware";
    /** Tenants of the deepest matched node a match result carries ({@code MATCHED_TENANTS_CAP}). */
    public static final int MATCHED_TENANTS_CAP = 8;

    private final double cacheThreshold;
    private final int balanceAbsThreshold;
    private final double balanceRelThreshold;
    private final long seed;
    private final ApproxPrefixIndex trees;
    private final Candidates.InFlight inFlight = new Candidates.InFlight();

    public SmgCacheAwareRouter(long seed) {
        this(
                seed,
                SglangCacheAwareRouter.DEFAULT_CACHE_THRESHOLD,
                SglangCacheAwareRouter.DEFAULT_BALANCE_ABS_THRESHOLD,
                SglangCacheAwareRouter.DEFAULT_BALANCE_REL_THRESHOLD,
                SglangCacheAwareRouter.DEFAULT_MAX_TREE_TOKENS);
    }

    public SmgCacheAwareRouter(
            long seed, double cacheThreshold, int balanceAbsThreshold, double balanceRelThreshold, long maxTreeTokens) {
        this.seed = seed;
        this.cacheThreshold = cacheThreshold;
        this.balanceAbsThreshold = balanceAbsThreshold;
        this.balanceRelThreshold = balanceRelThreshold;
        this.trees = new ApproxPrefixIndex(maxTreeTokens, true, 0);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int route(SimRequest request, ClusterView cluster) {
        long now = cluster.nowMs();
        List<BackendView> healthy = Candidates.of(cluster);
        double meanLoad = 0;
        for (BackendView b : healthy) {
            meanLoad += inFlight.get(b.index());
        }
        meanLoad /= healthy.size();
        int longest = 0;
        for (BackendView b : cluster.backends()) {
            longest = Math.max(longest, trees.match(b.index(), request, now));
        }
        BackendView chosen;
        if (SglangCacheAwareRouter.matchRate(request, longest) > cacheThreshold) {
            List<BackendView> matched = matchedTenants(cluster.backends(), request, longest, now);
            matched.removeIf(b -> !b.healthy());
            List<BackendView> safe = new ArrayList<>(matched);
            double mean = meanLoad;
            safe.removeIf(b -> requiresSpill(b, mean));
            if (!safe.isEmpty()) {
                chosen = inFlight.leastLoaded(safe);
            } else {
                List<BackendView> spill = new ArrayList<>(healthy);
                spill.removeIf(b -> requiresSpill(b, mean));
                chosen = inFlight.leastLoaded(spill.isEmpty() ? healthy : spill);
            }
        } else {
            chosen = inFlight.leastLoaded(healthy);
        }
        trees.record(chosen.index(), request, now);
        inFlight.increment(chosen.index());
        return chosen.index();
    }

    /** Up to {@value #MATCHED_TENANTS_CAP} tenants of the deepest matched node, in the node's map order. */
    private List<BackendView> matchedTenants(List<BackendView> all, SimRequest request, int depth, long now) {
        long node = request.blockIds().get(depth - 1);
        List<BackendView> tenants = new ArrayList<>();
        for (BackendView b : all) {
            if (trees.match(b.index(), request, now) == depth) {
                tenants.add(b);
            }
        }
        tenants.sort(Comparator.comparing(
                b -> ApproxPrefixIndex.tenantOrder(seed ^ node, b.index()), Long::compareUnsigned));
        List<BackendView> capped = new ArrayList<>(tenants.subList(0, Math.min(MATCHED_TENANTS_CAP, tenants.size())));
        capped.sort(Comparator.comparingInt(BackendView::index));
        return capped;
    }

    private boolean requiresSpill(BackendView b, double meanLoad) {
        int load = inFlight.get(b.index());
        return load > meanLoad * balanceRelThreshold && load > meanLoad + balanceAbsThreshold;
    }

    @Override
    public void onComplete(SimRequest request, int backend, long nowMs) {
        inFlight.decrement(backend);
    }

    /** Router-side in-flight count of {@code backend}. */
    public int load(int backend) {
        return inFlight.get(backend);
    }
}
