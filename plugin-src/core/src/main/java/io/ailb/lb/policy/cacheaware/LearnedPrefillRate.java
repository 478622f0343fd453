package io.ailb.lb.policy.cacheaware;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The prefill rate that requests whose response does not stream are expected at, learned from the engines. The
 * gateway never sees such a request's first token, but each instance's metrics count the first tokens it sent and the
 * seconds they took from the requests' arrival (vLLM's and SGLang's time-to-first-token histograms). The first tokens
 * an instance counted between two readings came from requests that reached it about their mean time to first token
 * earlier; over a fading window, the mean prefill tokens that the unstreamed requests routed there then had to wait for
 * (those queued ahead of each on the host, and its own), weighed by those first tokens, over the seconds they took is
 * the rate at which such a request's first token comes: the figure {@code prefillTokensPerSecond} stands for. It takes
 * in what tokens do not explain (the engine's step, its fixed costs), so a request's expected time is right on the
 * mean rather than per token. Pairing with the requests routed one time-to-first-token earlier, not with those routed
 * now, matters as queues grow: each request then waits for more than the ones whose first tokens are being counted.
 */
final class LearnedPrefillRate {
    /** The sums fade by e each minute: the window follows a load that changes over minutes. */
    static final double FADE_MILLIS = 60_000;
    /** Unstreamed requests paired and first tokens reported the window holds (faded) before it is used. */
    static final double MIN_REQUESTS = 50;
    /** Per host, what was routed is kept in buckets of 2 s over the last 128 s: the longest lag that is paired. */
    static final long BUCKET_MILLIS = 2_000;

    static final int BUCKETS = 64;
    /** Hosts remembered (about 1 KiB each); past it the memory starts over. */
    static final int MAX_HOSTS = 1024;

    private static final class Host {
        /** The counters of the last reading, and when it was read; none before the first. */
        boolean read;

        double lastSeconds;
        double lastFirstTokens;
        long lastReadAtMillis;
        /** Ring of buckets: the bucket number each slot holds, and its unstreamed requests' tokens and count. */
        final long[] bucket = new long[BUCKETS];

        final double[] tokens = new double[BUCKETS];
        final double[] requests = new double[BUCKETS];

        Host() {
            Arrays.fill(bucket, Long.MIN_VALUE);
        }
    }

    private final Map<String, Host> hosts = new HashMap<>();

    private double pairedTokens;
    private double pairedRequests;
    private double engineSeconds;
    private double engineFirstTokens;
    private long fadedAtMillis = Long.MIN_VALUE;

    /** An unstreamed request routed to {@code host} with {@code tokens} prefill tokens to wait for, its own included. */
    void routed(String host, double tokens, long nowMillis) {
        Host h = host(host);
        long number = Math.floorDiv(nowMillis, BUCKET_MILLIS);
        int slot = (int) Math.floorMod(number, (long) BUCKETS);
        if (h.bucket[slot] != number) {
            h.bucket[slot] = number;
            h.tokens[slot] = 0;
            h.requests[slot] = 0;
        }
        h.tokens[slot] += Math.max(0, tokens);
        h.requests[slot]++;
    }

    /**
     * A host's time-to-first-token counters as read now. The first reading of a host, and one whose counters went back
     * (a restarted engine), only set where the next one counts from.
     */
    void engineReading(String host, double firstTokenSeconds, double firstTokens, long nowMillis) {
        if (!(firstTokenSeconds >= 0) || !(firstTokens >= 0) || Double.isInfinite(firstTokenSeconds + firstTokens)) {
            return;
        }
        Host h = host(host);
        boolean first = !h.read;
        double seconds = firstTokenSeconds - h.lastSeconds;
        double count = firstTokens - h.lastFirstTokens;
        long fromMillis = h.lastReadAtMillis;
        h.read = true;
        h.lastSeconds = firstTokenSeconds;
        h.lastFirstTokens = firstTokens;
        h.lastReadAtMillis = nowMillis;
        if (first || count <= 0 || seconds < 0 || nowMillis <= fromMillis) {
            return;
        }
        long lagMillis = (long) (1000 * seconds / count);
        long lastBucket = Math.floorDiv(nowMillis - lagMillis, BUCKET_MILLIS);
        long firstBucket = Math.max(Math.floorDiv(fromMillis - lagMillis, BUCKET_MILLIS), lastBucket - BUCKETS + 1);
        double tokens = 0;
        double requests = 0;
        for (long number = firstBucket; number <= lastBucket; number++) {
            int slot = (int) Math.floorMod(number, (long) BUCKETS);
            if (h.bucket[slot] == number) {
                tokens += h.tokens[slot];
                requests += h.requests[slot];
            }
        }
        if (requests == 0) {
            return;
        }
        fade(nowMillis);
        pairedTokens += tokens / requests * count;
        pairedRequests += requests;
        engineSeconds += seconds;
        engineFirstTokens += count;
    }

    /** The learned rate in tokens a second once the window holds enough of both, else {@code prior}. */
    double tokensPerSecond(double prior) {
        if (pairedRequests < MIN_REQUESTS || engineFirstTokens < MIN_REQUESTS || !(engineSeconds > 0)) {
            return prior;
        }
        if (!(pairedTokens >= engineFirstTokens)) {
            // Under one token a request: nothing to learn a rate from.
            return prior;
        }
        return Math.max(1, Math.min(CacheAwarePolicy.MAX_PREFILL_TOKENS_PER_SECOND, pairedTokens / engineSeconds));
    }

    private Host host(String address) {
        Host h = hosts.get(address);
        if (h == null) {
            if (hosts.size() >= MAX_HOSTS) {
                hosts.clear();
            }
            h = new Host();
            hosts.put(address, h);
        }
        return h;
    }

    private void fade(long nowMillis) {
        if (fadedAtMillis != Long.MIN_VALUE && nowMillis > fadedAtMillis) {
            double keep = Math.exp(-(nowMillis - fadedAtMillis) / FADE_MILLIS);
            pairedTokens *= keep;
            pairedRequests *= keep;
            engineSeconds *= keep;
            engineFirstTokens *= keep;
        }
        if (fadedAtMillis == Long.MIN_VALUE || nowMillis > fadedAtMillis) {
            fadedAtMillis = nowMillis;
        }
    }
}
