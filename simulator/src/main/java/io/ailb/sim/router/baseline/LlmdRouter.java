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
 * llm-d's endpoint picker (EPP): weighted scorers, max-score picker (ties at random). Two scheduling profiles:
 *
 * <ul>
 * <li>{@link Profile#APPROXIMATE} ({@code llmd}), the default profile of the Helm chart ({@code _config.yaml}):
 * {@code prefix-cache-scorer: 3}, {@code queue-scorer: 2}, {@code kv-cache-utilization-scorer: 2}. The prefix score is
 * matched blocks / total blocks from the router's own approximate index ({@code llm-d/llm-d-inference-scheduler}
 * {@code pkg/epp/framework/plugins/requestcontrol/dataproducer/approximateprefix/plugin.go} @ 011f14d): after
 * picking, every block of the request is added to the chosen pod's LRU. With {@code autoTune} (default true) that
 * LRU holds as many blocks as the pod reports in {@code vllm:cache_config_info{num_gpu_blocks}}, of the pod's
 * {@code block_size}: here the capacity in tokens = num_gpu_blocks × block_size read from the backend's /metrics
 * text when the pod is first seen (31,250 blocks of 16 tokens when the text has none), and the index is kept in the
 * workload's blocks weighted by their tokens.</li>
 * <li>{@link Profile#PRECISE} ({@code llmd_precise}), {@code deploy/config/epp-precise-prefix-cache-config.yaml} @
 * 95f76e6: {@code precise-prefix-cache-scorer: 2}, {@code kv-cache-utilization-scorer: 1}, {@code queue-scorer: 1}.
 * The index is fed by the engines' KV events: modelled as exact knowledge of every backend's cache
 * ({@link BackendView#cachedPrefixBlocks}, event delay ignored). The raw score is the longest cached prefix in blocks;
 * pods with a raw score are min-max normalised among themselves (all equal → 1.0), pods without one score 0
 * ({@code indexedScoresToNormalizedScoredPods} in {@code scorer/preciseprefixcache/utils.go}).</li>
 * </ul>
 * Both: queue score = {@code (maxQ − q) / (maxQ − minQ)} over the candidates, 1.0 when all are equal, q =
 * {@code vllm:num_requests_waiting} parsed from {@link BackendView#metricsText()} (as stale as the simulator
 * publishes it; {@link BackendView#waiting()} when the text has no such sample); kv score = {@code 1 − usage} with
 * usage = {@code vllm:kv_cache_usage_perc} (or {@code vllm:gpu_cache_usage_perc}) from the same text.
 */
public final class LlmdRouter implements Router {
    public static final double DEFAULT_PREFIX_WEIGHT = 3;
    public static final double DEFAULT_QUEUE_WEIGHT = 2;
    public static final double DEFAULT_KV_WEIGHT = 2;
    public static final double PRECISE_PREFIX_WEIGHT = 2;
    public static final double PRECISE_QUEUE_WEIGHT = 1;
    public static final double PRECISE_KV_WEIGHT = 1;
    /** {@code lruCapacityPerServer}: blocks per pod when the pod reports no cache size. */
    public static final long DEFAULT_LRU_CAPACITY_PER_SERVER = 31_250;
    /** {@code blockSizeTokens} when the pod reports none (vLLM's default block size). */
    public static final int DEFAULT_BLOCK_SIZE_TOKENS = 16;

    public enum Profile {
        APPROXIMATE,
        PRECISE
    }

    /** One candidate's scores, each in [0, 1], and their weighted sum. */
    public record Score(int backend, double prefix, double queue, double kv, double total) {}

    private final Profile profile;
    private final double prefixWeight;
    private final double queueWeight;
    private final double kvWeight;
    private final SplittableRandom random;
    private final ApproxPrefixIndex index =
            new ApproxPrefixIndex(DEFAULT_LRU_CAPACITY_PER_SERVER * DEFAULT_BLOCK_SIZE_TOKENS, true, 0);

    public LlmdRouter(long seed, Profile profile) {
        this(
                seed,
                profile,
                profile == Profile.APPROXIMATE ? DEFAULT_PREFIX_WEIGHT : PRECISE_PREFIX_WEIGHT,
                profile == Profile.APPROXIMATE ? DEFAULT_QUEUE_WEIGHT : PRECISE_QUEUE_WEIGHT,
                profile == Profile.APPROXIMATE ? DEFAULT_KV_WEIGHT : PRECISE_KV_WEIGHT);
    }

    public LlmdRouter(long seed, Profile profile, double prefixWeight, double queueWeight, double kvWeight) {
        this.profile = profile;
        this.prefixWeight = prefixWeight;
        this.queueWeight = queueWeight;
        this.kvWeight = kvWeight;
        this.random = new SplittableRandom(seed);
    }

    @Override
    public String name() {
        return profile == Profile.APPROXIMATE ? "llmd" : "llmd_precise";
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
        BackendView chosen = Candidates.pick(ties, random);
        if (profile == Profile.APPROXIMATE) {
            index.record(chosen.index(), request, cluster.nowMs(), lruCapacityTokens(chosen));
        }
        return chosen.index();
    }

    /** autoTune: the pod's {@code num_gpu_blocks × block_size} tokens, the defaults when it reports neither. */
    static long lruCapacityTokens(BackendView backend) {
        String text = backend.metricsText();
        long blocks = PromText.label(text, "vllm:cache_config_info", "num_gpu_blocks")
                .map(Long::parseLong)
                .orElse(DEFAULT_LRU_CAPACITY_PER_SERVER);
        long blockSize = PromText.label(text, "vllm:cache_config_info", "block_size")
                .map(Long::parseLong)
                .orElse((long) DEFAULT_BLOCK_SIZE_TOKENS);
        return Math.max(1, blocks * blockSize);
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
        double[] prefix = profile == Profile.APPROXIMATE
                ? approximatePrefixScores(request, candidates, cluster)
                : precisePrefixScores(request, candidates);
        List<Score> scores = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            double q = maxQ == minQ ? 1.0 : (maxQ - queue[i]) / (maxQ - minQ);
            double kv = 1.0 - usage[i];
            scores.add(new Score(
                    candidates.get(i).index(),
                    prefix[i],
                    q,
                    kv,
                    prefixWeight * prefix[i] + queueWeight * q + kvWeight * kv));
        }
        return scores;
    }

    private double[] approximatePrefixScores(SimRequest request, List<BackendView> candidates, ClusterView cluster) {
        int totalBlocks = request.blockIds().size();
        double[] prefix = new double[candidates.size()];
        for (int i = 0; i < prefix.length; i++) {
            prefix[i] = totalBlocks == 0
                    ? 0.0
                    : (double) index.match(candidates.get(i).index(), request, cluster.nowMs()) / totalBlocks;
        }
        return prefix;
    }

    private static double[] precisePrefixScores(SimRequest request, List<BackendView> candidates) {
        double[] prefix = new double[candidates.size()];
        int[] raw = new int[prefix.length];
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (int i = 0; i < prefix.length; i++) {
            raw[i] = Math.max(0, candidates.get(i).cachedPrefixBlocks(request));
            if (raw[i] > 0) {
                min = Math.min(min, raw[i]);
                max = Math.max(max, raw[i]);
            }
        }
        for (int i = 0; i < prefix.length; i++) {
            if (raw[i] > 0) {
                prefix[i] = max == min ? 1.0 : (double) (raw[i] - min) / (max - min);
            }
        }
        return prefix;
    }
}
