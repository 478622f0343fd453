package io.ailb.sim.bounds;

import io.ailb.sim.backend.BackendConfig;
import io.ailb.sim.model.SimRequest;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A lower bound on the TTFT any router can give each request: the request alone on an idle instance
 * ({@link BackendConfig#loneTtftMs}: no queueing, no other sequence in the step) that holds the longest prefix any
 * earlier request had, i.e. its {@link HitRateBounds#infiniteHitTokens infinite-cache hit} (answers' blocks included
 * when the backend model caches them). Mean and percentiles are over requests, nearest rank.
 */
public final class TtftLowerBound {
    private TtftLowerBound() {}

    public record Result(int requests, double meanMs, double p50Ms, double p90Ms, double p99Ms) {}

    /** One request's bound: its infinite-cache hit and its TTFT alone on an idle instance holding that hit. */
    public record Bound(long cachedTokens, double ttftMs) {}

    /** Each request's bound, computed once for a report that needs both the summary and the requests by id. */
    public static PerRequest of(List<SimRequest> workload, BackendConfig config) {
        long[] hits = HitRateBounds.infiniteHitTokens(workload, config.cachesOutput());
        Bound[] bounds = new Bound[hits.length];
        for (int i = 0; i < bounds.length; i++) {
            bounds[i] = new Bound(hits[i], config.loneTtftMs(workload.get(i).inputTokens(), hits[i]));
        }
        return new PerRequest(workload, bounds);
    }

    /** The bounds of one workload's requests, in its order. */
    public static final class PerRequest {
        private final List<SimRequest> workload;
        private final Bound[] bounds;

        private PerRequest(List<SimRequest> workload, Bound[] bounds) {
            this.workload = workload;
            this.bounds = bounds;
        }

        public Result summary() {
            double[] ttft = new double[bounds.length];
            double sum = 0;
            for (int i = 0; i < ttft.length; i++) {
                ttft[i] = bounds[i].ttftMs();
                sum += ttft[i];
            }
            if (ttft.length == 0) {
                return new Result(0, 0, 0, 0, 0);
            }
            Arrays.sort(ttft);
            return new Result(ttft.length, sum / ttft.length, rank(ttft, 0.50), rank(ttft, 0.90), rank(ttft, 0.99));
        }

        /** Each request's bound by request id, for reports that meet requests by id. */
        public Map<Long, Bound> byId() {
            Map<Long, Bound> byId = new HashMap<>();
            for (int i = 0; i < bounds.length; i++) {
                byId.put(workload.get(i).id(), bounds[i]);
            }
            return byId;
        }
    }

    private static double rank(double[] sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}
