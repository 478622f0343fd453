package io.ailb.sim.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The outcome of one router on one workload. Shape (all times in simulated milliseconds unless named otherwise):
 *
 * <pre>
 * RunResult
 *   router, workload            names as shown in tables
 *   backends, gateways, seed    the setting (gateways = 0 for routers that are not the plugin)
 *   requests, completed         admitted to the engine / finished before the run ended
 *   inputTokens, cachedTokens   token sums; hitRate() = cachedTokens / inputTokens (token-weighted prefix hit)
 *   ttft, e2e                   Latency{mean, p50, p90, p99, max}
 *   outputTokens, durationMs    outputTokensPerSecond() = outputTokens / durationMs * 1000
 *   prefillTokens[b], requestsPerBackend[b]   per backend; loadImbalance() = max/mean of prefillTokens
 *   routedToUnhealthy           decisions that picked an unhealthy backend
 *   plugin                      PluginStats or null: decisionMicros (Latency, wall time of the guest calls incl. the
 *                               synchronous Redis round trips), redisRoundTrips, redisBytes (sent + received),
 *                               per-request averages, overrides, fallbacks, rejects, vmTraps, vmsStarted
 *   samples                     LoadSample{timeMs, running[b], waiting[b], kvUsage[b], prefillTokens[b] (cumulative)}
 *                               taken every sample interval; for load-over-time plots
 *   records                     RequestRecord per finished request (id, backend, arrival, ttft, e2e, input, cached,
 *                               output), in completion order; for CDF plots (not written to JSON)
 * </pre>
 */
public final class RunResult {
    /** Summary of a latency distribution, ms (µs for plugin decision cost). */
    public record Latency(long count, double mean, double p50, double p90, double p99, double max) {
        public static final Latency EMPTY = new Latency(0, 0, 0, 0, 0, 0);

        public static Latency of(double[] values) {
            if (values.length == 0) {
                return EMPTY;
            }
            double[] sorted = values.clone();
            java.util.Arrays.sort(sorted);
            double sum = 0;
            for (double v : sorted) {
                sum += v;
            }
            return new Latency(
                    sorted.length,
                    sum / sorted.length,
                    percentile(sorted, 0.50),
                    percentile(sorted, 0.90),
                    percentile(sorted, 0.99),
                    sorted[sorted.length - 1]);
        }

        /** Nearest-rank percentile of sorted values. */
        static double percentile(double[] sorted, double q) {
            int rank = (int) Math.ceil(q * sorted.length);
            return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
        }

        Map<String, Object> toMap() {
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("count", count);
            map.put("mean", round(mean));
            map.put("p50", round(p50));
            map.put("p90", round(p90));
            map.put("p99", round(p99));
            map.put("max", round(max));
            return map;
        }
    }

    /** What running the real plugin cost. */
    public record PluginStats(
            Latency decisionMicros,
            long redisRoundTrips,
            long redisBytes,
            long overrides,
            long fallbacks,
            long rejects,
            long vmTraps,
            int vmsStarted,
            long requests) {
        public double redisRoundTripsPerRequest() {
            return requests == 0 ? 0 : (double) redisRoundTrips / requests;
        }

        public double redisBytesPerRequest() {
            return requests == 0 ? 0 : (double) redisBytes / requests;
        }

        Map<String, Object> toMap() {
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("decision_us", decisionMicros.toMap());
            map.put("redis_round_trips", redisRoundTrips);
            map.put("redis_bytes", redisBytes);
            map.put("redis_round_trips_per_request", round(redisRoundTripsPerRequest()));
            map.put("redis_bytes_per_request", round(redisBytesPerRequest()));
            map.put("overrides", overrides);
            map.put("fallbacks", fallbacks);
            map.put("rejects", rejects);
            map.put("vm_traps", vmTraps);
            map.put("vms_started", vmsStarted);
            return map;
        }
    }

    /** Per-backend state at one instant. */
    public record LoadSample(double timeMs, int[] running, int[] waiting, double[] kvUsage, long[] prefillTokens) {}

    /**
     * One finished request; {@code sessionId} null when the workload has no sessions (traces); {@code countedCached}
     * the tokens the router counted as cached on its backend, -1 when it does not say
     * ({@link io.ailb.sim.router.Router#cachedTokensCountedOn}); {@code lookaheadRegretMs} how much later the
     * lookahead reference ({@link io.ailb.sim.model.BackendView#lookaheadTtftMs}) expected its first token on the chosen
     * backend than on the best one at its arrival, NaN when not measured
     * ({@link io.ailb.sim.engine.Simulation.Settings#withLookaheadRegret}).
     */
    public record RequestRecord(
            long id,
            String sessionId,
            int backend,
            double arrivalMs,
            double ttftMs,
            double e2eMs,
            int inputTokens,
            int cachedTokens,
            int outputTokens,
            long countedCached,
            double lookaheadRegretMs) {}

    private final String router;
    private final String workload;
    private final int backends;
    private final int gateways;
    private final long seed;
    private final long requests;
    private final long completed;
    private final long inputTokens;
    private final long cachedTokens;
    private final long outputTokens;
    private final double durationMs;
    private final Latency ttft;
    private final Latency e2e;
    private final long[] prefillTokens;
    private final long[] requestsPerBackend;
    private final long routedToUnhealthy;
    private final PluginStats plugin;
    private final List<LoadSample> samples;
    private final List<RequestRecord> records;

    public RunResult(
            String router,
            String workload,
            int backends,
            int gateways,
            long seed,
            long requests,
            long completed,
            long inputTokens,
            long cachedTokens,
            long outputTokens,
            double durationMs,
            Latency ttft,
            Latency e2e,
            long[] prefillTokens,
            long[] requestsPerBackend,
            long routedToUnhealthy,
            PluginStats plugin,
            List<LoadSample> samples,
            List<RequestRecord> records) {
        this.router = router;
        this.workload = workload;
        this.backends = backends;
        this.gateways = gateways;
        this.seed = seed;
        this.requests = requests;
        this.completed = completed;
        this.inputTokens = inputTokens;
        this.cachedTokens = cachedTokens;
        this.outputTokens = outputTokens;
        this.durationMs = durationMs;
        this.ttft = ttft;
        this.e2e = e2e;
        this.prefillTokens = prefillTokens.clone();
        this.requestsPerBackend = requestsPerBackend.clone();
        this.routedToUnhealthy = routedToUnhealthy;
        this.plugin = plugin;
        this.samples = List.copyOf(samples);
        this.records = List.copyOf(records);
    }

    public String router() {
        return router;
    }

    public String workload() {
        return workload;
    }

    public int backends() {
        return backends;
    }

    public int gateways() {
        return gateways;
    }

    public long seed() {
        return seed;
    }

    public long requests() {
        return requests;
    }

    public long completed() {
        return completed;
    }

    public long inputTokens() {
        return inputTokens;
    }

    public long cachedTokens() {
        return cachedTokens;
    }

    public long outputTokens() {
        return outputTokens;
    }

    public double durationMs() {
        return durationMs;
    }

    /** Token-weighted prefix-cache hit rate in [0, 1]. */
    public double hitRate() {
        return inputTokens == 0 ? 0 : (double) cachedTokens / inputTokens;
    }

    public Latency ttft() {
        return ttft;
    }

    public Latency e2e() {
        return e2e;
    }

    public double outputTokensPerSecond() {
        return durationMs <= 0 ? 0 : outputTokens / durationMs * 1000.0;
    }

    public long[] prefillTokens() {
        return prefillTokens.clone();
    }

    public long[] requestsPerBackend() {
        return requestsPerBackend.clone();
    }

    /** max / mean of the prefill (computed, uncached) tokens per backend; 1.0 is perfectly even. */
    public double loadImbalance() {
        long max = 0;
        long sum = 0;
        for (long p : prefillTokens) {
            max = Math.max(max, p);
            sum += p;
        }
        return sum == 0 ? 1.0 : max / ((double) sum / prefillTokens.length);
    }

    public long routedToUnhealthy() {
        return routedToUnhealthy;
    }

    /** Null unless the router ran the plugin. */
    public PluginStats plugin() {
        return plugin;
    }

    public List<LoadSample> samples() {
        return samples;
    }

    public List<RequestRecord> records() {
        return records;
    }

    /** The JSON form (everything except {@link #records()}). */
    public Map<String, Object> toMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("router", router);
        map.put("workload", workload);
        map.put("backends", backends);
        map.put("gateways", gateways);
        map.put("seed", seed);
        map.put("requests", requests);
        map.put("completed", completed);
        map.put("input_tokens", inputTokens);
        map.put("cached_tokens", cachedTokens);
        map.put("hit_rate", round(hitRate()));
        map.put("ttft_ms", ttft.toMap());
        map.put("e2e_ms", e2e.toMap());
        map.put("output_tokens", outputTokens);
        map.put("duration_ms", round(durationMs));
        map.put("output_tokens_per_s", round(outputTokensPerSecond()));
        map.put("load_imbalance", round(loadImbalance()));
        map.put("prefill_tokens_per_backend", toList(prefillTokens));
        map.put("requests_per_backend", toList(requestsPerBackend));
        map.put("routed_to_unhealthy", routedToUnhealthy);
        map.put("plugin", plugin == null ? null : plugin.toMap());
        List<Object> sampleList = new ArrayList<>();
        for (LoadSample s : samples) {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("t_ms", round(s.timeMs()));
            List<Object> running = new ArrayList<>();
            List<Object> waiting = new ArrayList<>();
            List<Object> kv = new ArrayList<>();
            for (int i = 0; i < s.running().length; i++) {
                running.add(s.running()[i]);
                waiting.add(s.waiting()[i]);
                kv.add(round(s.kvUsage()[i]));
            }
            one.put("running", running);
            one.put("waiting", waiting);
            one.put("kv_usage", kv);
            one.put("prefill_tokens", toList(s.prefillTokens()));
            sampleList.add(one);
        }
        map.put("samples", sampleList);
        return map;
    }

    private static List<Object> toList(long[] values) {
        List<Object> list = new ArrayList<>();
        for (long v : values) {
            list.add(v);
        }
        return list;
    }

    static double round(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return 0;
        }
        return Math.round(v * 10000.0) / 10000.0;
    }
}
