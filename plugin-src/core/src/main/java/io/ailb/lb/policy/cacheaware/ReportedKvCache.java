package io.ailb.lb.policy.cacheaware;

import io.ailb.lb.metrics.EngineMetrics;
import io.ailb.lb.model.Endpoint;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The KV cache size instances report in the metrics of their host info, remembered per host: an instance's cache is
 * fixed for its lifetime, so its metrics page (tens of KiB on vLLM) is read again at most once per
 * {@link #REREAD_MILLIS}, not on every request.
 */
final class ReportedKvCache {
    /** How long a host's reading holds; a restarted instance at the same address with another size waits this long. */
    static final long REREAD_MILLIS = 60_000;
    /** Hosts remembered; past it the memory starts over (a VM serving more hosts re-reads them). */
    static final int MAX_HOSTS = 4096;

    private static final class Reading {
        final double tokens;
        final long readAtMillis;

        Reading(double tokens, long readAtMillis) {
            this.tokens = tokens;
            this.readAtMillis = readAtMillis;
        }
    }

    private final Map<String, Reading> byHost = new HashMap<>();

    /**
     * The smallest KV cache in tokens that any of {@code hosts} reports, 0 when none does. The smallest, because one
     * figure judges evictions on every instance: on a larger one a prefix may count as evicted early, which costs a
     * hit, never a request sent to a prefix that is gone.
     */
    long smallestTokens(List<Endpoint> hosts, long nowMillis) {
        double least = Double.NaN;
        for (Endpoint host : hosts) {
            double tokens = tokensOf(host, nowMillis);
            // NaN tested explicitly: in the TeaVM-compiled module !(x >= NaN) came out false.
            if (!Double.isNaN(tokens) && (Double.isNaN(least) || tokens < least)) {
                least = tokens;
            }
        }
        return Double.isNaN(least) ? 0 : (long) Math.min(least, CacheAwarePolicy.MAX_KV_CACHE_TOKENS);
    }

    private double tokensOf(Endpoint host, long nowMillis) {
        Reading reading = byHost.get(host.address());
        if (reading != null && nowMillis - reading.readAtMillis < REREAD_MILLIS && nowMillis >= reading.readAtMillis) {
            return reading.tokens;
        }
        String text = host.metricsText();
        if (text == null || text.isEmpty()) {
            // Nothing to read: costs nothing to look again next time.
            return Double.NaN;
        }
        double tokens = EngineMetrics.parse(text, null).kvCacheTokens();
        if (byHost.size() >= MAX_HOSTS && reading == null) {
            byHost.clear();
        }
        byHost.put(host.address(), new Reading(tokens, nowMillis));
        return tokens;
    }
}
