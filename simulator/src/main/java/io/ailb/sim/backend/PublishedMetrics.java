package io.ailb.sim.backend;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Locale;

/**
 * An instance's /metrics as a scraper sees it: snapshots taken whenever the state changes, read back as of
 * {@code stalenessMs} ago, with vLLM's metric names (its time-to-first-token histogram as its sum and count only). Snapshots older than the visible one are dropped as they go out
 * of sight, so the history stays short however long the run.
 */
final class PublishedMetrics {
    private record Snapshot(
            double timeMs, int running, int waiting, double kvUsage, double firstTokenSeconds, long firstTokens) {}

    private final double stalenessMs;
    private final String cacheConfig;
    private final Deque<Snapshot> snapshots = new ArrayDeque<>();

    PublishedMetrics(BackendConfig config) {
        this.stalenessMs = config.metricsStalenessMs();
        this.cacheConfig = "vllm:cache_config_info{block_size=\"" + BackendConfig.KV_BLOCK_TOKENS
                + "\",num_gpu_blocks=\"" + config.capacityTokens() / BackendConfig.KV_BLOCK_TOKENS
                + "\",model_name=\"sim\"} 1.0\n";
        snapshots.add(new Snapshot(Double.NEGATIVE_INFINITY, 0, 0, 0.0, 0.0, 0));
    }

    void publish(double nowMs, int running, int waiting, double kvUsage, double firstTokenSeconds, long firstTokens) {
        Snapshot last = snapshots.peekLast();
        if (last != null && last.timeMs() == nowMs) {
            snapshots.pollLast();
        }
        snapshots.add(new Snapshot(nowMs, running, waiting, kvUsage, firstTokenSeconds, firstTokens));
        dropInvisible(nowMs);
    }

    String text(double nowMs) {
        dropInvisible(nowMs);
        Snapshot s = snapshots.peekFirst();
        String label = "{model_name=\"sim\"}";
        return "# TYPE vllm:num_requests_running gauge\n"
                + "vllm:num_requests_running" + label + " " + s.running() + "\n"
                + "# TYPE vllm:num_requests_waiting gauge\n"
                + "vllm:num_requests_waiting" + label + " " + s.waiting() + "\n"
                + "# TYPE vllm:gpu_cache_usage_perc gauge\n"
                + "vllm:gpu_cache_usage_perc" + label + " " + format(s.kvUsage()) + "\n"
                + "# TYPE vllm:kv_cache_usage_perc gauge\n"
                + "vllm:kv_cache_usage_perc" + label + " " + format(s.kvUsage()) + "\n"
                + "# TYPE vllm:time_to_first_token_seconds histogram\n"
                + "vllm:time_to_first_token_seconds_sum" + label + " " + format(s.firstTokenSeconds()) + "\n"
                + "vllm:time_to_first_token_seconds_count" + label + " " + s.firstTokens() + "\n"
                + "# TYPE vllm:cache_config_info gauge\n"
                + cacheConfig;
    }

    /** Keeps the newest snapshot at or before {@code nowMs − stalenessMs} and everything after it. */
    private void dropInvisible(double nowMs) {
        double visible = nowMs - stalenessMs;
        while (snapshots.size() > 1) {
            Iterator<Snapshot> it = snapshots.iterator();
            it.next();
            if (it.next().timeMs() <= visible) {
                snapshots.pollFirst();
            } else {
                break;
            }
        }
    }

    private static String format(double v) {
        return String.format(Locale.ROOT, "%.4f", v);
    }
}
