package io.ailb.lb.metrics;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-VM metrics of hosts that do not get metrics from the gateway: which hosts to scrape, when, and what the last
 * successful scrape said. A host is forgotten when no request has listed it for a while, and skipped after
 * {@code unhealthyThreshold} consecutive failed scrapes.
 */
public final class MetricsStore {
    /** A due scrape: host and the cluster it was seen in. */
    public static final class Due {
        private final String clusterName;
        private final String host;

        Due(String clusterName, String host) {
            this.clusterName = clusterName;
            this.host = host;
        }

        public String clusterName() {
            return clusterName;
        }

        public String host() {
            return host;
        }
    }

    private static final class HostState {
        String clusterName;
        long lastSeen;
        long lastStart = Long.MIN_VALUE;
        boolean inFlight;
        int failures;
        EngineMetrics metrics;
    }

    private final long refreshMillis;
    private final long timeoutMillis;
    private final int unhealthyThreshold;
    private final long forgetAfterMillis;
    private final String extraFamily;
    private final Map<String, HostState> hosts = new LinkedHashMap<>();

    /** {@code extraFamily}: one more family to keep from scrapes (the policy's target metric), or null. */
    public MetricsStore(long refreshMillis, long timeoutMillis, int unhealthyThreshold, String extraFamily) {
        this.refreshMillis = refreshMillis;
        this.timeoutMillis = timeoutMillis;
        this.unhealthyThreshold = unhealthyThreshold;
        this.forgetAfterMillis = Math.max(60_000L, 10 * refreshMillis);
        this.extraFamily = extraFamily;
    }

    /** A request listed {@code host}; keeps it scraped. */
    public void saw(String clusterName, String host, long nowMillis) {
        HostState state = hosts.get(host);
        if (state == null) {
            state = new HostState();
            hosts.put(host, state);
        }
        state.clusterName = clusterName;
        state.lastSeen = nowMillis;
    }

    /** Scrapes to start now; each is marked in flight until {@link #onResult} or until it times out. */
    public List<Due> due(long nowMillis) {
        List<Due> out = new ArrayList<>();
        Iterator<Map.Entry<String, HostState>> entries = hosts.entrySet().iterator();
        while (entries.hasNext()) {
            Map.Entry<String, HostState> entry = entries.next();
            HostState state = entry.getValue();
            if (nowMillis - state.lastSeen > forgetAfterMillis) {
                entries.remove();
                continue;
            }
            // A result that never came counts as a failure.
            if (state.inFlight && nowMillis - state.lastStart > timeoutMillis + refreshMillis) {
                state.inFlight = false;
                state.failures++;
            }
            if (!state.inFlight
                    && (state.lastStart == Long.MIN_VALUE || nowMillis - state.lastStart >= refreshMillis)) {
                state.inFlight = true;
                state.lastStart = nowMillis;
                out.add(new Due(state.clusterName, entry.getKey()));
            }
        }
        return out;
    }

    /**
     * A scrape finished: 2xx with a body holding at least one known family is a success, anything else a failure.
     * Returns the metrics it brought, null when it failed (or the host is not kept).
     */
    public EngineMetrics onResult(String host, int httpStatus, String body, long nowMillis) {
        HostState state = hosts.get(host);
        if (state == null) {
            return null;
        }
        state.inFlight = false;
        EngineMetrics parsed =
                httpStatus >= 200 && httpStatus < 300 && body != null ? EngineMetrics.parse(body, extraFamily) : null;
        if (parsed == null || parsed.isEmpty()) {
            state.failures++;
            return null;
        }
        state.failures = 0;
        state.metrics = parsed;
        return parsed;
    }

    /** The host's last scraped metrics; null when never scraped successfully or skipped as unhealthy. */
    public EngineMetrics metrics(String host) {
        HostState state = hosts.get(host);
        if (state == null || state.failures >= unhealthyThreshold) {
            return null;
        }
        return state.metrics;
    }

    /** True when the host's last {@code unhealthyThreshold} scrapes failed. */
    public boolean unhealthy(String host) {
        HostState state = hosts.get(host);
        return state != null && state.failures >= unhealthyThreshold;
    }
}
