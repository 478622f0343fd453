package io.ailb.lb.policy.clustermetrics;

/**
 * What one VM measured of one service: requests in flight, the last {@code queue_size} first-token and total latencies
 * (the Least* modes average them), their EWMAs (AdaptiveScore), and the failure state; plus what the gateway's other
 * VMs measured ({@code peer*}, from shared data, see {@link SharedStats}). Decisions read the {@code pooled*} values.
 */
final class ServiceStats {
    /** A latency nobody measured yet. */
    static final double NONE = -1;

    /** Success and failure counts decay by this per outcome, so the error rate covers about the last 100 outcomes. */
    static final double OUTCOME_DECAY = 0.99;

    private final SampleWindow firstToken;
    private final SampleWindow total;
    /** The in-flight count each sample's request met at its decision, in the same windows' order. */
    private final SampleWindow firstTokenLoad;

    private final SampleWindow totalLoad;
    private final double ewmaBeta;

    int inflight;
    double ewmaFirstTokenMillis;
    double ewmaTotalMillis;
    double successes;
    double failures;
    int consecutiveFailures;
    long cooldownUntilMillis;
    long lastFailureMillis;
    /** Set by a failure, cleared by the next success: the service has not yet shown it works again. */
    boolean awaitingProbe;

    private double lastFirstTokenMillis;

    int peerInflight;
    double peerFirstTokenEwma = NONE;
    double peerTotalEwma = NONE;
    double peerMeanFirstToken = NONE;
    double peerMeanTotal = NONE;
    /** The peers' recent outcomes (decayed), the weight of their latencies and error rate against this VM's. */
    double peerOutcomes;

    double peerErrorRate;
    long peerCooldownUntilMillis;

    ServiceStats(int windowSize, double ewmaBeta) {
        this.firstToken = new SampleWindow(windowSize);
        this.total = new SampleWindow(windowSize);
        this.firstTokenLoad = new SampleWindow(windowSize);
        this.totalLoad = new SampleWindow(windowSize);
        this.ewmaBeta = ewmaBeta;
    }

    /** Mean of the recent first-token latencies; 0 before the first sample (an unmeasured service gets tried). */
    double meanFirstTokenMillis() {
        return firstToken.mean();
    }

    double meanTotalMillis() {
        return total.mean();
    }

    /** {@code load}: the requests in flight to the service when this one was sent there. */
    void recordFirstToken(double millis, int load) {
        lastFirstTokenMillis = millis;
        ewmaFirstTokenMillis = hasFirstToken() ? ewma(ewmaFirstTokenMillis, millis) : millis;
        firstTokenLoad.add(load);
        firstToken.add(millis);
    }

    void recordTotal(double millis, int load) {
        ewmaTotalMillis = hasTotal() ? ewma(ewmaTotalMillis, millis) : millis;
        totalLoad.add(load);
        total.add(millis);
    }

    /** This VM measured a first-token latency of the service (the EWMA holds a value). */
    boolean hasFirstToken() {
        return firstToken.size > 0;
    }

    boolean hasTotal() {
        return total.size > 0;
    }

    /**
     * A finished request (recorded after its latencies): a failure starts (or extends) the cooldown; a success ends
     * the failure streak, and the first success after a failure restarts the latency EWMAs from this request, so the
     * punished samples of the failure episode stop counting once the service works again.
     */
    void recordOutcome(boolean failed, long nowMillis, long cooldownMillis) {
        successes *= OUTCOME_DECAY;
        failures *= OUTCOME_DECAY;
        if (failed) {
            failures += 1;
            consecutiveFailures++;
            cooldownUntilMillis = nowMillis + cooldownMillis;
            lastFailureMillis = nowMillis;
            awaitingProbe = true;
            return;
        }
        successes += 1;
        consecutiveFailures = 0;
        if (awaitingProbe) {
            awaitingProbe = false;
            ewmaFirstTokenMillis = lastFirstTokenMillis;
            ewmaTotalMillis = total.newest();
        }
    }

    /**
     * The share of failures among the recent outcomes, fading with the time since the last failure (halved after
     * {@code halfLifeMillis}, a third after twice that): a service that failed and was then avoided has no new outcomes
     * to dilute its rate, so time does. Hyperbolic rather than exponential: Math.pow costs 24 KB of Wasm.
     */
    double errorRate(long nowMillis, long halfLifeMillis) {
        double outcomes = successes + failures;
        if (outcomes == 0 || failures == 0) {
            return 0;
        }
        double halfLife = Math.max(1, halfLifeMillis);
        double age = Math.max(0, nowMillis - lastFailureMillis);
        return failures / outcomes * halfLife / (halfLife + age);
    }

    boolean coolingDown(long nowMillis) {
        return nowMillis < Math.max(cooldownUntilMillis, peerCooldownUntilMillis);
    }

    int pooledInflight() {
        return inflight + peerInflight;
    }

    boolean hasPooledLatency() {
        return hasFirstToken() || hasTotal() || peerFirstTokenEwma != NONE || peerTotalEwma != NONE;
    }

    double pooledFirstTokenEwma() {
        return pool(hasFirstToken() ? ewmaFirstTokenMillis : NONE, peerFirstTokenEwma);
    }

    double pooledTotalEwma() {
        return pool(hasTotal() ? ewmaTotalMillis : NONE, peerTotalEwma);
    }

    /** The Least*Latency measure: 0 while nobody measured the service (it then gets tried). */
    double pooledMeanFirstToken() {
        return pool(hasFirstToken() ? firstToken.mean() : NONE, peerMeanFirstToken);
    }

    double pooledMeanTotal() {
        return pool(hasTotal() ? total.mean() : NONE, peerMeanTotal);
    }

    /**
     * The first-token latency a request sent now should meet: the recent mean, scaled by the in-flight count now over
     * the one the sampled requests met. The plain mean lags by up to {@code queue_size} samples, so every request went
     * to the service that had looked fastest until its queue showed in the mean (the Go plugin's herding); a service
     * busy at the same level as when it was measured keeps its mean.
     */
    double expectedFirstToken() {
        return pooledMeanFirstToken() * (pooledInflight() + 1) / (firstTokenLoad.mean() + 1);
    }

    double expectedTotal() {
        return pooledMeanTotal() * (pooledInflight() + 1) / (totalLoad.mean() + 1);
    }

    double pooledErrorRate(long nowMillis, long halfLifeMillis) {
        double local = errorRate(nowMillis, halfLifeMillis);
        double own = successes + failures;
        return own + peerOutcomes == 0 ? local : (local * own + peerErrorRate * peerOutcomes) / (own + peerOutcomes);
    }

    /** This VM's and the peers' values, weighted by their recent outcomes; 0 when neither has one. */
    private double pool(double local, double peers) {
        if (local == NONE) {
            return peers == NONE ? 0 : peers;
        }
        if (peers == NONE) {
            return local;
        }
        double own = successes + failures;
        if (own + peerOutcomes == 0) {
            return (local + peers) / 2;
        }
        return (local * own + peers * peerOutcomes) / (own + peerOutcomes);
    }

    /** Forgets the peers (before a new exchange, or when shared data is unavailable). */
    void clearPeers() {
        peerInflight = 0;
        peerFirstTokenEwma = NONE;
        peerTotalEwma = NONE;
        peerMeanFirstToken = NONE;
        peerMeanTotal = NONE;
        peerOutcomes = 0;
        peerErrorRate = 0;
        peerCooldownUntilMillis = 0;
    }

    private double ewma(double old, double sample) {
        return ewmaBeta * old + (1 - ewmaBeta) * sample;
    }

    /** The last N samples and their sum. */
    private static final class SampleWindow {
        private final double[] samples;
        private int next;
        int size;
        private double sum;

        SampleWindow(int capacity) {
            samples = new double[capacity];
        }

        void add(double sample) {
            if (size == samples.length) {
                sum -= samples[next];
            } else {
                size++;
            }
            samples[next] = sample;
            sum += sample;
            next = (next + 1) % samples.length;
        }

        double mean() {
            return size == 0 ? 0 : sum / size;
        }

        /** The last sample; 0 when there is none. */
        double newest() {
            return size == 0 ? 0 : samples[(next + samples.length - 1) % samples.length];
        }
    }
}
