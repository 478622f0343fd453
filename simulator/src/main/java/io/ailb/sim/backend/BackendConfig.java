package io.ailb.sim.backend;

/**
 * Knobs of one simulated vLLM-like instance (all instances of a run share one). Defaults: 30 ms prefill overhead,
 * 62.5 µs per uncached prompt token (≈16k tok/s), 12 ms inter-token latency growing to 2.0× at {@code maxNumSeqs}
 * running sequences, 256 sequences per batch, 1 M tokens of KV cache, /metrics 100 ms stale, one prefill at a time.
 */
public record BackendConfig(long capacityTokens, double overheadMs, double prefillUsPerToken, double itlMs,
        double timeFactorUnderLoad, int maxNumSeqs, double metricsStalenessMs, boolean serialPrefill) {

    public static final BackendConfig DEFAULT = new BackendConfig(1_000_000L, 30.0, 62.5, 12.0, 2.0, 256, 100.0, true);

    public BackendConfig {
        if (capacityTokens < 0 || overheadMs < 0 || prefillUsPerToken < 0 || itlMs < 0 || timeFactorUnderLoad < 1.0
                || maxNumSeqs < 1 || metricsStalenessMs < 0) {
            throw new IllegalArgumentException("invalid backend configuration: " + this);
        }
    }

    public BackendConfig withCapacityTokens(long value) {
        return new BackendConfig(value, overheadMs, prefillUsPerToken, itlMs, timeFactorUnderLoad, maxNumSeqs,
                metricsStalenessMs, serialPrefill);
    }

    public BackendConfig withOverheadMs(double value) {
        return new BackendConfig(capacityTokens, value, prefillUsPerToken, itlMs, timeFactorUnderLoad, maxNumSeqs,
                metricsStalenessMs, serialPrefill);
    }

    public BackendConfig withPrefillUsPerToken(double value) {
        return new BackendConfig(capacityTokens, overheadMs, value, itlMs, timeFactorUnderLoad, maxNumSeqs,
                metricsStalenessMs, serialPrefill);
    }

    public BackendConfig withItlMs(double value) {
        return new BackendConfig(capacityTokens, overheadMs, prefillUsPerToken, value, timeFactorUnderLoad, maxNumSeqs,
                metricsStalenessMs, serialPrefill);
    }

    public BackendConfig withTimeFactorUnderLoad(double value) {
        return new BackendConfig(capacityTokens, overheadMs, prefillUsPerToken, itlMs, value, maxNumSeqs,
                metricsStalenessMs, serialPrefill);
    }

    public BackendConfig withMaxNumSeqs(int value) {
        return new BackendConfig(capacityTokens, overheadMs, prefillUsPerToken, itlMs, timeFactorUnderLoad, value,
                metricsStalenessMs, serialPrefill);
    }

    public BackendConfig withMetricsStalenessMs(double value) {
        return new BackendConfig(capacityTokens, overheadMs, prefillUsPerToken, itlMs, timeFactorUnderLoad, maxNumSeqs,
                value, serialPrefill);
    }

    public BackendConfig withSerialPrefill(boolean value) {
        return new BackendConfig(capacityTokens, overheadMs, prefillUsPerToken, itlMs, timeFactorUnderLoad, maxNumSeqs,
                metricsStalenessMs, value);
    }

    /** The decode slow-down with {@code running} sequences in the batch: 1.0 alone, the full factor at the limit. */
    public double loadFactor(int running) {
        if (maxNumSeqs <= 1 || running <= 1) {
            return 1.0;
        }
        double share = Math.min(1.0, (running - 1) / (double) (maxNumSeqs - 1));
        return 1.0 + (timeFactorUnderLoad - 1.0) * share;
    }
}
