package io.ailb.sim.router.baseline;

import io.ailb.sim.model.BackendView;
import io.ailb.sim.model.ClusterView;
import io.ailb.sim.model.SimRequest;
import io.ailb.sim.router.Router;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.SplittableRandom;

/**
 * llm-d's EPP default scheduling profile (Helm chart {@code _config.yaml}): {@code prefix-cache-scorer: 3},
 * {@code queue-scorer: 2}, {@code kv-cache-utilization-scorer: 2}, max-score picker (ties at random).
 *
 * <ul>
 * <li>prefix score = matched blocks / total blocks of the request, from this router's own approximate index
 * (approx-prefix-cache-producer): after picking, every block id of the request is added to the chosen pod's LRU of
 * {@link #DEFAULT_LRU_CAPACITY_PER_SERVER} entries ({@code lruCapacityPerServer} default); blocks are the workload's
 * blocks, not llm-d's own token block size.</li>
 * <li>queue score = {@code (maxQ − q) / (maxQ − minQ)} over the candidates, 1.0 when all are equal, with q =
 * {@code vllm:num_requests_waiting} parsed from {@link BackendView#metricsText()} — the scraped text, as stale as the
 * simulator publishes it. Falls back to {@link BackendView#waiting()} when the text has no such sample.</li>
 * <li>kv score = {@code 1 − usage}, usage = {@code vllm:kv_cache_usage_perc} (or the older
 * {@code vllm:gpu_cache_usage_perc}) from the same text, a fraction in [0, 1]; falls back to
 * {@link BackendView#kvUsage()}.</li>
 * </ul>
 */
public final class LlmdRouter implements Router {
    public static final double DEFAULT_PREFIX_WEIGHT = 3;
    public static final double DEFAULT_QUEUE_WEIGHT = 2;
    public static final double DEFAULT_KV_WEIGHT = 2;
    public static final long DEFAULT_LRU_CAPACITY_PER_SERVER = 31_250;

    /** One candidate's scores, each in [0, 1], and their weighted sum. */
    public record Score(int backend, double prefix, double queue, double kv, double total) {
    }

    private final double prefixWeight;
    private final double queueWeight;
    private final double kvWeight;
    private final SplittableRandom random;
    private final ApproxPrefixIndex index;

    public LlmdRouter(long seed) {
        this(seed, DEFAULT_PREFIX_WEIGHT, DEFAULT_QUEUE_WEIGHT, DEFAULT_KV_WEIGHT, DEFAULT_LRU_CAPACITY_PER_SERVER);
    }

    public LlmdRouter(long seed, double prefixWeight, double queueWeight, double kvWeight, long lruCapacityPerServer) {
        this.prefixWeight = prefixWeight;
        this.queueWeight = queueWeight;
        this.kvWeight = kvWeight;
        this.random = new SplittableRandom(seed);
        this.index = new ApproxPrefixIndex(lruCapacityPerServer, false, 0);
    }

    @Override
    public String name() {
        return "llmd";
    }

    @Override
    public int route(SimRequest request, ClusterView cluster) {
        List<BackendView> candidates = Candidates.of(cluster);
        List<Score> scores = score(request, cluster);
        double best = Double.NEGATIVE_INFINITY;
        List<BackendView> ties = new ArrayList<>();
        for (int i = 0; i < scores.size(); i++) {
            double total = scores.get(i).total();
            if (total > best) {
                best = total;
                ties.clear();
            }
            if (total == best) {
                ties.add(candidates.get(i));
            }
        }
        int chosen = Candidates.pick(ties, random).index();
        index.record(chosen, request, cluster.nowMs());
        return chosen;
    }

    /** The scores of the candidates (healthy backends, or all when none is), in the cluster's order. */
    public List<Score> score(SimRequest request, ClusterView cluster) {
        List<BackendView> candidates = Candidates.of(cluster);
        int n = candidates.size();
        double[] queue = new double[n];
        double[] usage = new double[n];
        double minQ = Double.POSITIVE_INFINITY;
        double maxQ = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            BackendView b = candidates.get(i);
            String text = b.metricsText();
            queue[i] = PromText.sum(text, "vllm:num_requests_waiting").orElse(b.waiting());
            OptionalDouble kv = PromText.sum(text, "vllm:kv_cache_usage_perc");
            if (kv.isEmpty()) {
                kv = PromText.sum(text, "vllm:gpu_cache_usage_perc");
            }
            usage[i] = Math.max(0, Math.min(1, kv.orElse(b.kvUsage())));
            minQ = Math.min(minQ, queue[i]);
            maxQ = Math.max(maxQ, queue[i]);
        }
        int totalBlocks = request.blockIds().size();
        List<Score> scores = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            BackendView b = candidates.get(i);
            double prefix = totalBlocks == 0 ? 0.0
                    : (double) index.match(b.index(), request, cluster.nowMs()) / totalBlocks;
            double q = maxQ == minQ ? 1.0 : (maxQ - queue[i]) / (maxQ - minQ);
            double kv = 1.0 - usage[i];
            scores.add(new Score(b.index(), prefix, q, kv, prefixWeight * prefix + queueWeight * q + kvWeight * kv));
        }
        return scores;
    }
}
