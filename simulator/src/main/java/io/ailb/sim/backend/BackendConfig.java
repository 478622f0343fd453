package io.ailb.sim.backend;

import java.util.Locale;

/**
 * Knobs of one simulated vLLM-like instance (all instances of a run share one). Defaults: the {@link Model#VLLM} step
 * model with a token budget of 8,192 per step, 62.5 µs per token (≈16k tok/s prefill), 12 ms for a step that decodes
 * one token (so a lone sequence decodes at 12 ms per token), 256 sequences per batch, 1 M tokens of KV cache, /metrics
 * 100 ms stale. {@code overheadMs} (30) and {@code timeFactorUnderLoad} (2.0) belong to the {@link Model#SERIAL} and
 * {@link Model#PARALLEL} models only.
 */
public record BackendConfig(
        long capacityTokens,
        double overheadMs,
        double prefillUsPerToken,
        double itlMs,
        double timeFactorUnderLoad,
        int maxNumSeqs,
        double metricsStalenessMs,
        Model model,
        int stepBudgetTokens) {

    /** How an instance turns queued work into time. */
    public enum Model {
        /** vLLM V1 scheduler steps: decodes first, then FCFS prefill chunks up to the token budget ({@link VllmBackend}). */
        VLLM,
        /** One prefill at a time, each {@code overhead + uncached × per-token} ({@link SimBackend}). */
        SERIAL,
        /** As {@link #SERIAL} but prefills run concurrently, each at full speed ({@link SimBackend}). */
        PARALLEL;

        /** The CLI name: vllm, serial, parallel. */
        public String cliName() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Model fromCli(String name) {
            for (Model m : values()) {
                if (m.cliName().equals(name)) {
                    return m;
                }
            }
            throw new IllegalArgumentException("unknown backend model " + name + " (vllm, serial or parallel)");
        }
    }

    /** vLLM's default KV block size, reported in {@code vllm:cache_config_info}. */
    public static final int KV_BLOCK_TOKENS = 16;
    /** vLLM's {@code max_num_batched_tokens} default on large GPUs. */
    public static final int DEFAULT_STEP_BUDGET_TOKENS = 8192;

    public static final BackendConfig DEFAULT =
            new BackendConfig(1_000_000L, 30.0, 62.5, 12.0, 2.0, 256, 100.0, Model.VLLM, DEFAULT_STEP_BUDGET_TOKENS);

    public BackendConfig {
        if (capacityTokens < 0
                || overheadMs < 0
                || prefillUsPerToken < 0
                || itlMs < 0
                || timeFactorUnderLoad < 1.0
                || maxNumSeqs < 1
                || metricsStalenessMs < 0
                || model == null
                || stepBudgetTokens < 1) {
            throw new IllegalArgumentException("invalid backend configuration: " + this);
        }
    }

    public BackendConfig withCapacityTokens(long value) {
        return new BackendConfig(
                value,
                overheadMs,
                prefillUsPerToken,
                itlMs,
                timeFactorUnderLoad,
                maxNumSeqs,
                metricsStalenessMs,
                model,
                stepBudgetTokens);
    }

    public BackendConfig withOverheadMs(double value) {
        return new BackendConfig(
                capacityTokens,
                value,
                prefillUsPerToken,
                itlMs,
                timeFactorUnderLoad,
                maxNumSeqs,
                metricsStalenessMs,
                model,
                stepBudgetTokens);
    }

    public BackendConfig withPrefillUsPerToken(double value) {
        return new BackendConfig(
                capacityTokens,
                overheadMs,
                value,
                itlMs,
                timeFactorUnderLoad,
                maxNumSeqs,
                metricsStalenessMs,
                model,
                stepBudgetTokens);
    }

    public BackendConfig withItlMs(double value) {
        return new BackendConfig(
                capacityTokens,
                overheadMs,
                prefillUsPerToken,
                value,
                timeFactorUnderLoad,
                maxNumSeqs,
                metricsStalenessMs,
                model,
                stepBudgetTokens);
    }

    public BackendConfig withTimeFactorUnderLoad(double value) {
        return new BackendConfig(
                capacityTokens,
                overheadMs,
                prefillUsPerToken,
                itlMs,
                value,
                maxNumSeqs,
                metricsStalenessMs,
                model,
                stepBudgetTokens);
    }

    public BackendConfig withMaxNumSeqs(int value) {
        return new BackendConfig(
                capacityTokens,
                overheadMs,
                prefillUsPerToken,
                itlMs,
                timeFactorUnderLoad,
                value,
                metricsStalenessMs,
                model,
                stepBudgetTokens);
    }

    public BackendConfig withMetricsStalenessMs(double value) {
        return new BackendConfig(
                capacityTokens,
                overheadMs,
                prefillUsPerToken,
                itlMs,
                timeFactorUnderLoad,
                maxNumSeqs,
                value,
                model,
                stepBudgetTokens);
    }

    public BackendConfig withModel(Model value) {
        return new BackendConfig(
                capacityTokens,
                overheadMs,
                prefillUsPerToken,
                itlMs,
                timeFactorUnderLoad,
                maxNumSeqs,
                metricsStalenessMs,
                value,
                stepBudgetTokens);
    }

    public BackendConfig withStepBudgetTokens(int value) {
        return new BackendConfig(
                capacityTokens,
                overheadMs,
                prefillUsPerToken,
                itlMs,
                timeFactorUnderLoad,
                maxNumSeqs,
                metricsStalenessMs,
                model,
                value);
    }

    /** Serial model: one prefill at a time. */
    public boolean serialPrefill() {
        return model == Model.SERIAL;
    }

    /** Whether the instance caches the blocks a sequence generates (vLLM does; the older models do not). */
    public boolean cachesOutput() {
        return model == Model.VLLM;
    }

    /** Step model: the fixed cost of one step, chosen so that a step decoding one token takes {@code itlMs}. */
    public double stepFixedMs() {
        return Math.max(0, itlMs - prefillUsPerToken / 1000.0);
    }

    /** Step model: the duration of a step that processes {@code tokens} tokens. */
    public double stepMs(long tokens) {
        return stepFixedMs() + tokens * prefillUsPerToken / 1000.0;
    }

    /**
     * The TTFT of a request alone on an idle instance that holds {@code cachedTokens} of its prompt: no queueing, no
     * other sequence in the batch. The step model computes at least one token (vLLM recomputes the last token of a
     * fully cached prompt) in budget-sized chunks, one step each.
     */
    public double loneTtftMs(long inputTokens, long cachedTokens) {
        long uncached = Math.max(0, inputTokens - cachedTokens);
        if (model != Model.VLLM) {
            return overheadMs + uncached * prefillUsPerToken / 1000.0;
        }
        long computed = Math.max(1, uncached);
        long steps = (computed + stepBudgetTokens - 1) / stepBudgetTokens;
        return steps * stepFixedMs() + computed * prefillUsPerToken / 1000.0;
    }

    /** Serial and parallel models: the decode slow-down with {@code running} sequences, 1.0 alone, the factor at the limit. */
    public double loadFactor(int running) {
        if (maxNumSeqs <= 1 || running <= 1) {
            return 1.0;
        }
        double share = Math.min(1.0, (running - 1) / (double) (maxNumSeqs - 1));
        return 1.0 + (timeFactorUnderLoad - 1.0) * share;
    }
}
