package io.ailb.lb.policy.clustermetrics;

/**
 * What one VM measured of one service: requests in flight, the last {@code queue_size} first-token and total latencies
 * (the Least* modes average them), their EWMAs (AdaptiveScore), and the failure state.
 */
final class ServiceStats {
    /** Success and failure counts decay by this per outcome, so the error rate covers about the last 100 outcomes. */
    static final double OUTCOME_DECAY = 0.99;

    private final LatencyWindow firstToken;
    private final LatencyWindow total;
    private final double ewmaBeta;

    int inflight;
    double ewmaFirstTokenMillis;
    double ewmaTotalMillis;
    boolean hasFirstToken;
    boolean hasTotal;
    double successes;
    double failures;
    int consecutiveFailures;
    long cooldownUntilMillis;

    ServiceStats(int windowSize, double ewmaBeta) {
        this.firstToken = new LatencyWindow(windowSize);
        this.total = new LatencyWindow(windowSize);
        this.ewmaBeta = ewmaBeta;
    }

    /** Mean of the recent first-token latencies; 0 before the first sample (an unmeasured service gets tried). */
    double meanFirstTokenMillis() {
        return firstToken.mean();
    }

    double meanTotalMillis() {
        return total.mean();
    }

    void recordFirstToken(double millis) {
        firstToken.add(millis);
        ewmaFirstTokenMillis = hasFirstToken ? ewma(ewmaFirstTokenMillis, millis) : millis;
        hasFirstToken = true;
    }

    void recordTotal(double millis) {
        total.add(millis);
        ewmaTotalMillis = hasTotal ? ewma(ewmaTotalMillis, millis) : millis;
        hasTotal = true;
    }

    /** A finished request: a failure starts (or extends) the cooldown; a success ends the failure streak. */
    void recordOutcome(boolean failed, long nowMillis, long cooldownMillis) {
        successes *= OUTCOME_DECAY;
        failures *= OUTCOME_DECAY;
        if (failed) {
            failures += 1;
            consecutiveFailures++;
            cooldownUntilMillis = nowMillis + cooldownMillis;
        } else {
            successes += 1;
            consecutiveFailures = 0;
        }
    }

    double errorRate() {
        double outcomes = successes + failures;
        return outcomes == 0 ? 0 : failures / outcomes;
    }

    boolean coolingDown(long nowMillis) {
        return nowMillis < cooldownUntilMillis;
    }

    private double ewma(double old, double sample) {
        return ewmaBeta * old + (1 - ewmaBeta) * sample;
    }

    /** The last N samples and their sum. */
    private static final class LatencyWindow {
        private final double[] samples;
        private int next;
        private int size;
        private double sum;

        LatencyWindow(int capacity) {
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
    }
}
