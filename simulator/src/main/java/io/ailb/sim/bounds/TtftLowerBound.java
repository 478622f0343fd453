package io.ailb.sim.bounds;

import io.ailb.sim.backend.BackendConfig;
import io.ailb.sim.model.SimRequest;
import java.util.Arrays;
import java.util.List;

/**
 * A lower bound on the TTFT any router can give each request: the request alone on an idle instance
 * ({@link BackendConfig#loneTtftMs}: no queueing, no other sequence in the step) that holds the longest prefix any
 * earlier request had, i.e. its {@link HitRateBounds#infiniteHitTokens infinite-cache hit} (answers' blocks included
 * when the backend model caches them). Mean and percentiles are over requests, nearest rank.
 */
public final class TtftLowerBound {
    private TtftLowerBound() {}

    public record Result(int requests, double meanMs, double p50Ms, double p90Ms, double p99Ms) {}

    public static Result compute(List<SimRequest> workload, BackendConfig config) {
        long[] hits = HitRateBounds.infiniteHitTokens(workload, config.cachesOutput());
        double[] ttft = new double[workload.size()];
        double sum = 0;
        for (int i = 0; i < ttft.length; i++) {
            ttft[i] = config.loneTtftMs(workload.get(i).inputTokens(), hits[i]);
            sum += ttft[i];
        }
        if (ttft.length == 0) {
            return new Result(0, 0, 0, 0, 0);
        }
        Arrays.sort(ttft);
        return new Result(ttft.length, sum / ttft.length, rank(ttft, 0.50), rank(ttft, 0.90), rank(ttft, 0.99));
    }

    private static double rank(double[] sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}
