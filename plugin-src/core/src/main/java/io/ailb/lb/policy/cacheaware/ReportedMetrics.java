package io.ailb.lb.policy.cacheaware;

import io.ailb.lb.metrics.EngineMetrics;
import io.ailb.lb.metrics.MetricsStore;
import io.ailb.lb.model.Endpoint;
import io.ailb.lb.policy.ScrapeRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What instances report in their metrics, per host: the KV cache size, and the first tokens they sent with the time
 * those took, which teach the {@link LearnedPrefillRate}. A metrics page (tens of KiB on vLLM) is read at most once
 * per {@link #REREAD_MILLIS}, not on every request. The page comes from the host info when Higress puts it there; for
 * a host whose info has none, the policy scrapes the configured metrics path itself on its ticks, at the same pace.
 */
final class ReportedMetrics {
    /** How long a host's reading holds: the first-token counters it brings are fresh enough for a minute's window. */
    static final long REREAD_MILLIS = 10_000;
    /** Hosts remembered; past it the memory starts over (a VM serving more hosts re-reads them). */
    static final int MAX_HOSTS = 4096;

    static final int SCRAPE_TIMEOUT_MILLIS = 3000;
    /** vLLM's and SGLang's pages are 10-300 KiB; a longer answer is not parsed. */
    static final int SCRAPE_MAX_BYTES = 4 << 20;
    /** Failed scrapes in a row after which a host's last reading no longer counts. */
    static final int SCRAPE_FAILURES = 3;

    private static final class Reading {
        final double tokens;
        final long readAtMillis;

        Reading(double tokens, long readAtMillis) {
            this.tokens = tokens;
            this.readAtMillis = readAtMillis;
        }
    }

    private final String metricsPath;
    private final Map<String, Reading> byHost = new HashMap<>();
    private final LearnedPrefillRate prefillRate = new LearnedPrefillRate();
    /** Hosts without metrics in their info: scraped by the policy. */
    private final MetricsStore scraped = new MetricsStore(REREAD_MILLIS, SCRAPE_TIMEOUT_MILLIS, SCRAPE_FAILURES, null);

    /** {@code metricsPath}: where hosts without metrics in their info are scraped. */
    ReportedMetrics(String metricsPath) {
        this.metricsPath = metricsPath;
    }

    /** The rate learned from the first tokens the hosts reported, and from what was routed to them. */
    LearnedPrefillRate prefillRate() {
        return prefillRate;
    }

    /**
     * Reads the pages of {@code hosts} whose reading is due (their first tokens go to the learned rate) and returns
     * the smallest KV cache in tokens that any of them (of {@code clusterName}) reports, 0 when none does. The
     * smallest, because one figure judges evictions on every instance: on a larger one a prefix may count as evicted
     * early, which costs a hit, never a request sent to a prefix that is gone.
     */
    long smallestTokens(String clusterName, List<Endpoint> hosts, long nowMillis) {
        double least = Double.NaN;
        for (Endpoint host : hosts) {
            least = EngineMetrics.smallerKnown(least, tokensOf(clusterName, host, nowMillis));
        }
        return Double.isNaN(least) ? 0 : (long) Math.min(least, CacheAwarePolicy.MAX_KV_CACHE_TOKENS);
    }

    /** The scrapes due now, for hosts whose info carries no metrics. */
    List<ScrapeRequest> dueScrapes(long nowMillis) {
        List<ScrapeRequest> out = new ArrayList<>();
        for (MetricsStore.Due due : scraped.due(nowMillis)) {
            out.add(new ScrapeRequest(
                    due.clusterName(), due.host(), metricsPath, SCRAPE_TIMEOUT_MILLIS, SCRAPE_MAX_BYTES));
        }
        return out;
    }

    void onScrapeResult(String host, int httpStatus, String body, long nowMillis) {
        // Only a page just read: a failed scrape's stale counters would mark a reading that brought nothing.
        EngineMetrics metrics = scraped.onResult(host, httpStatus, body, nowMillis);
        if (metrics != null) {
            prefillRate.engineReading(host, metrics.firstTokenSeconds(), metrics.firstTokens(), nowMillis);
        }
    }

    private double tokensOf(String clusterName, Endpoint host, long nowMillis) {
        String text = host.metricsText();
        if (text == null || text.isEmpty()) {
            scraped.saw(clusterName, host.address(), nowMillis);
            EngineMetrics metrics = scraped.metrics(host.address());
            return metrics == null ? Double.NaN : metrics.kvCacheTokens();
        }
        Reading reading = byHost.get(host.address());
        if (reading != null && nowMillis - reading.readAtMillis < REREAD_MILLIS && nowMillis >= reading.readAtMillis) {
            return reading.tokens;
        }
        EngineMetrics metrics = EngineMetrics.parse(text, null);
        prefillRate.engineReading(host.address(), metrics.firstTokenSeconds(), metrics.firstTokens(), nowMillis);
        double tokens = metrics.kvCacheTokens();
        if (byHost.size() >= MAX_HOSTS && reading == null) {
            byHost.clear();
        }
        byHost.put(host.address(), new Reading(tokens, nowMillis));
        return tokens;
    }
}
