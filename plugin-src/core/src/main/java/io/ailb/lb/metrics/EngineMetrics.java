package io.ailb.lb.metrics;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The load figures of one inference engine (vLLM or SGLang), each possibly unknown: a missing metric family makes
 * that figure unknown (NaN, or {@link #loraKnown()} false) instead of failing the whole host.
 */
public final class EngineMetrics {
    public static final String VLLM_RUNNING = "vllm:num_requests_running";
    public static final String VLLM_WAITING = "vllm:num_requests_waiting";
    public static final String VLLM_KV_USAGE = "vllm:kv_cache_usage_perc";
    public static final String VLLM_GPU_CACHE_USAGE = "vllm:gpu_cache_usage_perc";
    public static final String VLLM_LORA_INFO = "vllm:lora_requests_info";
    public static final String SGLANG_RUNNING = "sglang:num_running_reqs";
    public static final String SGLANG_WAITING = "sglang:num_queue_reqs";
    public static final String SGLANG_TOKEN_USAGE = "sglang:token_usage";
    /** vLLM's cache settings as labels of a constant series: num_gpu_blocks × block_size is its KV cache in tokens. */
    public static final String VLLM_CACHE_CONFIG = "vllm:cache_config_info";

    public static final String SGLANG_MAX_TOTAL_TOKENS = "sglang:max_total_num_tokens";
    /** The engines' time-to-first-token histograms (from a request's arrival there), by their sum and count. */
    public static final String VLLM_FIRST_TOKEN_SECONDS_SUM = "vllm:time_to_first_token_seconds_sum";

    public static final String VLLM_FIRST_TOKEN_SECONDS_COUNT = "vllm:time_to_first_token_seconds_count";
    public static final String SGLANG_FIRST_TOKEN_SECONDS_SUM = "sglang:time_to_first_token_seconds_sum";
    public static final String SGLANG_FIRST_TOKEN_SECONDS_COUNT = "sglang:time_to_first_token_seconds_count";

    /** The families this class reads. */
    public static final Set<String> FAMILIES = Collections.unmodifiableSet(new HashSet<>(Arrays.asList(
            VLLM_RUNNING,
            VLLM_WAITING,
            VLLM_KV_USAGE,
            VLLM_GPU_CACHE_USAGE,
            VLLM_LORA_INFO,
            SGLANG_RUNNING,
            SGLANG_WAITING,
            SGLANG_TOKEN_USAGE,
            VLLM_CACHE_CONFIG,
            SGLANG_MAX_TOTAL_TOKENS,
            VLLM_FIRST_TOKEN_SECONDS_SUM,
            VLLM_FIRST_TOKEN_SECONDS_COUNT,
            SGLANG_FIRST_TOKEN_SECONDS_SUM,
            SGLANG_FIRST_TOKEN_SECONDS_COUNT)));

    private final MetricFamilies families;
    private final double running;
    private final double waiting;
    private final double kvCacheUsage;
    private final double kvCacheTokens;
    private final double firstTokenSeconds;
    private final double firstTokens;
    private final boolean loraKnown;
    private final Set<String> activeAdapters;
    private final int maxAdapters;

    private EngineMetrics(MetricFamilies families) {
        this.families = families;
        this.running = first(families.sum(VLLM_RUNNING), families.sum(SGLANG_RUNNING));
        this.waiting = first(families.sum(VLLM_WAITING), families.sum(SGLANG_WAITING));
        // A fraction per engine: data-parallel ranks are averaged, not added.
        this.kvCacheUsage = first(
                first(families.mean(VLLM_KV_USAGE), families.mean(VLLM_GPU_CACHE_USAGE)),
                families.mean(SGLANG_TOKEN_USAGE));
        this.kvCacheTokens = first(vllmCacheTokens(families), smallest(families, SGLANG_MAX_TOTAL_TOKENS));
        // Data-parallel ranks' series add up: the instance's first tokens are all of theirs.
        boolean vllm = !Double.isNaN(families.sum(VLLM_FIRST_TOKEN_SECONDS_COUNT));
        this.firstTokenSeconds = families.sum(vllm ? VLLM_FIRST_TOKEN_SECONDS_SUM : SGLANG_FIRST_TOKEN_SECONDS_SUM);
        this.firstTokens = families.sum(vllm ? VLLM_FIRST_TOKEN_SECONDS_COUNT : SGLANG_FIRST_TOKEN_SECONDS_COUNT);
        // vLLM exposes one series per adapter-set change, valued with its timestamp: the largest is current.
        MetricFamilies.Sample lora = families.largest(VLLM_LORA_INFO);
        this.loraKnown = lora != null;
        this.activeAdapters =
                lora == null ? Collections.emptySet() : adapters(lora.labels().get("running_lora_adapters"));
        this.maxAdapters = lora == null ? -1 : parseCount(lora.labels().get("max_lora"));
    }

    public static EngineMetrics of(MetricFamilies families) {
        return new EngineMetrics(families);
    }

    /** Parses an exposition, keeping the engine families plus {@code extraFamily} (may be null). */
    public static EngineMetrics parse(String text, String extraFamily) {
        Set<String> wanted = FAMILIES;
        if (extraFamily != null && !extraFamily.isEmpty()) {
            wanted = new HashSet<>(FAMILIES);
            wanted.add(extraFamily);
        }
        return new EngineMetrics(PrometheusText.parse(text, wanted));
    }

    /** Requests being decoded; NaN when unknown. */
    public double running() {
        return running;
    }

    /** Requests queued; NaN when unknown. */
    public double waiting() {
        return waiting;
    }

    /** KV-cache usage as a fraction 0..1; NaN when unknown. */
    public double kvCacheUsage() {
        return kvCacheUsage;
    }

    /**
     * KV cache of the engine in tokens (vLLM: num_gpu_blocks × block_size; SGLang: max_total_num_tokens); NaN when
     * unknown. With several series (data-parallel ranks, each with its own cache) the smallest: a prefix lives in one.
     */
    public double kvCacheTokens() {
        return kvCacheTokens;
    }

    /** Seconds from arrival to first token, summed over every request the engine has answered; NaN when unknown. */
    public double firstTokenSeconds() {
        return firstTokenSeconds;
    }

    /** Requests whose first token the engine has sent (the count of {@link #firstTokenSeconds}); NaN when unknown. */
    public double firstTokens() {
        return firstTokens;
    }

    /** True when the engine reports LoRA adapter state. */
    public boolean loraKnown() {
        return loraKnown;
    }

    /** Adapters loaded now; empty when unknown. */
    public Set<String> activeAdapters() {
        return activeAdapters;
    }

    /** {@code max_lora}; -1 when unknown. */
    public int maxAdapters() {
        return maxAdapters;
    }

    /** The sum of any family's series (for {@code target_metric}); NaN when absent. */
    public double value(String family) {
        return families.sum(family);
    }

    /** True when no known family was present (e.g. the path serves something else). */
    public boolean isEmpty() {
        return families.isEmpty();
    }

    private static double first(double preferred, double alternative) {
        return Double.isNaN(preferred) ? alternative : preferred;
    }

    private static double vllmCacheTokens(MetricFamilies families) {
        double least = Double.NaN;
        for (MetricFamilies.Sample sample : families.samples(VLLM_CACHE_CONFIG)) {
            // Label values are Python reprs: "None" before the engine has profiled its memory.
            double blocks = positive(sample.labels().get("num_gpu_blocks"));
            double blockSize = positive(sample.labels().get("block_size"));
            least = smallerKnown(least, blocks * blockSize);
        }
        return least;
    }

    private static double smallest(MetricFamilies families, String name) {
        double least = Double.NaN;
        for (MetricFamilies.Sample sample : families.samples(name)) {
            if (sample.value() > 0 && !Double.isInfinite(sample.value())) {
                least = smallerKnown(least, sample.value());
            }
        }
        return least;
    }

    /** The smaller of two figures where NaN means unknown: NaN only when both are. */
    public static double smallerKnown(double least, double value) {
        // NaN tested explicitly: in the TeaVM-compiled module !(x >= NaN) came out false.
        if (Double.isNaN(value)) {
            return least;
        }
        return Double.isNaN(least) || value < least ? value : least;
    }

    /** A positive label value, else NaN. */
    private static double positive(String text) {
        if (text == null) {
            return Double.NaN;
        }
        double value = PrometheusText.parseValue(text.trim());
        return value > 0 && !Double.isInfinite(value) ? value : Double.NaN;
    }

    private static Set<String> adapters(String csv) {
        if (csv == null || csv.isEmpty()) {
            return Collections.emptySet();
        }
        Set<String> out = new LinkedHashSet<>();
        int start = 0;
        while (start <= csv.length()) {
            int comma = csv.indexOf(',', start);
            int end = comma < 0 ? csv.length() : comma;
            String name = csv.substring(start, end).trim();
            if (!name.isEmpty()) {
                out.add(name);
            }
            start = end + 1;
        }
        return Collections.unmodifiableSet(out);
    }

    private static int parseCount(String text) {
        if (text == null) {
            return -1;
        }
        double value = PrometheusText.parseValue(text.trim());
        return Double.isNaN(value) || value < 0 || value > Integer.MAX_VALUE ? -1 : (int) value;
    }
}
