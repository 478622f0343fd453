package io.ailb.lb.policy.cacheaware;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The prefill rate that requests whose response does not stream are expected at, learned from the engines. The
 * gateway never sees such a request's first token, but each instance's metrics count the first tokens it sent and the
 * seconds they took from the requests' arrival (vLLM's and SGLang's time-to-first-token histograms). The first tokens
 * an instance counted between two readings came from requests that reached it about their mean time to first token
 * earlier; the unstreamed requests routed there then were expected after some mean time, at the rate in use. Where the
 * expected times were longer than the engine's, the rate was too slow, and the other way round. The rate learned is
 * the rate in use times the square root of that ratio, over a fading window: the square root, because the tokens a
 * request is expected to wait for count the work of those ahead that is itself held at that rate, so their number
 * falls as the rate rises; correcting by the whole ratio would overshoot (a rate too slow makes queues look long and
 * sets one too fast, which makes them look short), by its square root converges. The rate takes in what tokens do not
 * explain (the engine's step, its fixed costs), so expected times are right on the mean rather than per token. It is
 * for gateways whose clients do not stream: once 50 streamed requests are routed, their fit times the unstreamed ones.
 */
final class LearnedPrefillRate {
    /** The sums fade by e each minute: the window follows a load that changes over minutes. */
    static final double FADE_MILLIS = 60_000;
    /** Unstreamed requests paired and first tokens reported the window holds (faded) before it is used. */
    static final double MIN_REQUESTS = 50;
    /** Per host, what was routed is kept in buckets of 2 s over the last 128 s: the longest lag that is paired. */
    static final long BUCKET_MILLIS = 2_000;

    static final int BUCKETS = 64;
    /** Hosts remembered (about 2 KiB each, 2 MiB at most); past it the memory starts over. */
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
        final double[] expectedSeconds = new double[BUCKETS];
        final double[] requests = new double[BUCKETS];

        Host() {
            Arrays.fill(bucket, Long.MIN_VALUE);
        }
    }

    private final Map<String, Host> hosts = new HashMap<>();

    private double pairedTokens;
    /** Per first token paired, the geometric mean of the expected and the engine's seconds, summed. */
    private double pairedSeconds;

    private double pairedRequests;
    private double engineFirstTokens;
    private long fadedAtMillis = Long.MIN_VALUE;
    /** Streamed requests this VM routed, up to MIN_REQUESTS: from there on, their fit times unstreamed requests. */
    private int streamedRouted;

    /**
     * An unstreamed request routed to {@code host}, its first token expected in {@code expectedMillis} at {@code
     * tokensPerSecond}: the prefill tokens it waits for (its own and those ahead) at that rate.
     */
    void routed(String host, long expectedMillis, double tokensPerSecond, long nowMillis) {
        double expected = Math.max(0, expectedMillis) / 1000.0;
        Host h = host(host);
        long number = Math.floorDiv(nowMillis, BUCKET_MILLIS);
        int slot = (int) Math.floorMod(number, (long) BUCKETS);
        if (h.bucket[slot] != number) {
            h.bucket[slot] = number;
            h.tokens[slot] = 0;
            h.expectedSeconds[slot] = 0;
            h.requests[slot] = 0;
        }
        h.tokens[slot] += expected * tokensPerSecond;
        h.expectedSeconds[slot] += expected;
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
        double expected = 0;
        double requests = 0;
        for (long number = firstBucket; number <= lastBucket; number++) {
            int slot = (int) Math.floorMod(number, (long) BUCKETS);
            if (h.bucket[slot] == number) {
                tokens += h.tokens[slot];
                expected += h.expectedSeconds[slot];
                requests += h.requests[slot];
            }
        }
        if (requests == 0) {
            return;
        }
        fade(nowMillis);
        pairedTokens += tokens / requests * count;
        pairedSeconds += Math.sqrt(expected / requests * (seconds / count)) * count;
        pairedRequests += requests;
        engineFirstTokens += count;
    }

    /**
     * A streamed request routed. Once MIN_REQUESTS of them are timed, the fit of their first tokens times unstreamed
     * requests too, and where it finds no cost per token the configured rate backs it: the learned one is for
     * gateways whose clients do not stream.
     */
    void streamedRouted() {
        if (streamedRouted < MIN_REQUESTS) {
            streamedRouted++;
        }
    }

    /**
     * The learned rate in tokens a second once the window holds enough of both, else {@code prior}; {@code prior}
     * too once MIN_REQUESTS streamed requests were routed.
     */
    double tokensPerSecond(double prior) {
        if (streamedRouted >= MIN_REQUESTS
                || pairedRequests < MIN_REQUESTS
                || engineFirstTokens < MIN_REQUESTS
                || !(pairedSeconds > 0)) {
            return prior;
        }
        if (!(pairedTokens >= engineFirstTokens)) {
            // Under one token a request: nothing to learn a rate from.
            return prior;
        }
        return Math.max(1, Math.min(CacheAwarePolicy.MAX_PREFILL_TOKENS_PER_SECOND, pairedTokens / pairedSeconds));
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
            pairedSeconds *= keep;
            pairedRequests *= keep;
            engineFirstTokens *= keep;
        }
        if (fadedAtMillis == Long.MIN_VALUE || nowMillis > fadedAtMillis) {
            fadedAtMillis = nowMillis;
        }
    }
}
