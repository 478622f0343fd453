package io.ailb.lb.policy.cacheaware;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LearnedPrefillRateTest {
    private static final double PRIOR = 10_000;

    /** {@code requests} unstreamed requests routed to {@code host}, each expected in {@code expectedMillis} at PRIOR. */
    private static void route(LearnedPrefillRate rate, String host, int requests, long expectedMillis, long atMillis) {
        for (int i = 0; i < requests; i++) {
            rate.routed(host, expectedMillis, PRIOR, atMillis);
        }
    }

    @Test
    void theRateInUseIsCorrectedByTheSquareRootOfHowMuchLongerTheExpectedFirstTokensWere() {
        assertEquals(
                PRIOR * Math.sqrt(0.8 / 0.5), learnedAfter(PRIOR, 0.8, 0.5), 1e-6, "expected in 0.8 s, came in 0.5");
        assertEquals(PRIOR * Math.sqrt(0.8 / 3.2), learnedAfter(PRIOR, 0.8, 3.2), 1e-6, "came in 3.2 s");
    }

    /**
     * A few windows, each a new learner taught at the rate the last one learned: the rate converges whether the
     * tokens a request waits for hold still as the rate changes or fall with it (work held at a faster rate leaves
     * the queue sooner), where correcting by the whole ratio would swing back and forth in the second case.
     */
    @Test
    void theCorrectionConvergesWhetherOrNotTheTokensWaitedForFollowTheRate() {
        double trueRate = 16_000;
        double fixedTokens = 8_000;
        double used = PRIOR;
        for (int window = 0; window < 8; window++) {
            used = learnedAfter(used, fixedTokens / used, fixedTokens / trueRate);
        }
        assertEquals(trueRate, used, 0.005 * trueRate, "the tokens a request waits for do not depend on the rate");

        // Queued work held at rate r looks like K / r tokens ahead; the engine needs 0.5 s whatever the rate.
        double heldWork = 8_000 * 16_000;
        double first = learnedAfter(PRIOR, heldWork / PRIOR / PRIOR, 0.5);
        assertEquals(16_000, first, 1e-3, "one window");
        assertEquals(16_000, learnedAfter(first, heldWork / first / first, 0.5), 1e-3, "and it stays");
    }

    /**
     * A fresh learner taught one window: 100 requests routed to host "a" at 1 s, expected in {@code expectedSeconds}
     * at {@code used} tokens a second, whose first tokens the instance reported at 10 s as taking {@code took} each.
     */
    private static LearnedPrefillRate taught(double used, double expectedSeconds, double took) {
        LearnedPrefillRate rate = new LearnedPrefillRate();
        rate.engineReading("a", 0, 0, 0);
        for (int i = 0; i < 100; i++) {
            rate.routed("a", Math.round(expectedSeconds * 1000), used, 1_000);
        }
        rate.engineReading("a", 100 * took, 100, 10_000);
        return rate;
    }

    /** The rate {@link #taught} learns, starting from {@code used}. */
    private static double learnedAfter(double used, double expectedSeconds, double took) {
        return taught(used, expectedSeconds, took).tokensPerSecond(used);
    }

    @Test
    void firstTokensArePairedWithTheRequestsRoutedOneTimeToFirstTokenEarlier() {
        LearnedPrefillRate rate = new LearnedPrefillRate();
        rate.engineReading("a", 0, 0, 0);
        // Queues grow: requests routed early are expected in 0.2 s, later ones in 2 s.
        route(rate, "a", 100, 200, 1_000);
        route(rate, "a", 100, 2_000, 9_000);
        // 100 first tokens counted by 10 s that took 8.5 s each came from requests routed before 1.5 s.
        rate.engineReading("a", 850, 100, 10_000);
        assertEquals(PRIOR * Math.sqrt(0.2 / 8.5), rate.tokensPerSecond(PRIOR), 1e-6);

        LearnedPrefillRate quick = new LearnedPrefillRate();
        quick.engineReading("a", 0, 0, 0);
        route(quick, "a", 100, 200, 1_000);
        route(quick, "a", 100, 2_000, 9_000);
        // Taking 0.5 s each, they came from requests routed up to 9.5 s: both groups.
        quick.engineReading("a", 50, 100, 10_000);
        double meanTokens = (2_000 + 20_000) / 2.0;
        assertEquals(meanTokens / Math.sqrt(1.1 * 0.5), quick.tokensPerSecond(PRIOR), 1e-6);
    }

    @Test
    void onceFiftyStreamedRequestsAreRoutedTheConfiguredRateBacksTheirFit() {
        LearnedPrefillRate rate = taught(PRIOR, 0.8, 0.5);
        for (int i = 0; i < 49; i++) {
            rate.streamedRouted();
        }
        assertEquals(PRIOR * Math.sqrt(0.8 / 0.5), rate.tokensPerSecond(PRIOR), 1e-6, "49 streamed");
        rate.streamedRouted();
        assertEquals(PRIOR, rate.tokensPerSecond(PRIOR));
    }

    @Test
    void thePriorHoldsUntilFiftyOfEachAreSeen() {
        LearnedPrefillRate rate = new LearnedPrefillRate();
        rate.engineReading("a", 0, 0, 0);
        route(rate, "a", 49, 800, 1_000);
        rate.engineReading("a", 49, 98, 10_000);
        assertEquals(PRIOR, rate.tokensPerSecond(PRIOR), "49 routed");

        LearnedPrefillRate fewFirstTokens = new LearnedPrefillRate();
        fewFirstTokens.engineReading("a", 0, 0, 0);
        route(fewFirstTokens, "a", 100, 800, 1_000);
        fewFirstTokens.engineReading("a", 20, 40, 10_000);
        assertEquals(PRIOR, fewFirstTokens.tokensPerSecond(PRIOR), "40 first tokens reported");
        route(fewFirstTokens, "a", 100, 800, 11_000);
        fewFirstTokens.engineReading("a", 40, 80, 20_000);
        assertEquals(
                PRIOR * Math.sqrt(0.8 / 0.5),
                fewFirstTokens.tokensPerSecond(PRIOR),
                1e-6,
                "80 of them, faded a little");
    }

    @Test
    void aHostsFirstReadingIsOnlyABaselineAndARestartedEngineStartsOneAgain() {
        LearnedPrefillRate rate = new LearnedPrefillRate();
        route(rate, "a", 100, 100, 1_000);
        rate.engineReading("a", 5_000, 10_000, 2_000);
        assertEquals(PRIOR, rate.tokensPerSecond(PRIOR), "what the engine counted before is not what was routed");
        route(rate, "a", 100, 100, 3_000);
        rate.engineReading("a", 5_010, 10_100, 12_000);
        assertEquals(PRIOR, rate.tokensPerSecond(PRIOR), 1e-3, "expected in 0.1 s, came in 0.1 s");
        rate.engineReading("a", 1, 10, 13_000);
        route(rate, "a", 100, 100, 14_000);
        rate.engineReading("a", 41, 110, 22_000);
        double keep = Math.exp(-10_000 / LearnedPrefillRate.FADE_MILLIS);
        assertEquals(
                1_000 * (keep + 1) / (0.1 * keep + Math.sqrt(0.1 * 0.4)),
                rate.tokensPerSecond(PRIOR),
                1e-6,
                "after the restart, from its baseline");
    }

    @Test
    void firstTokensOfAHostWithoutUnstreamedRequestsFromHereAreNotPaired() {
        LearnedPrefillRate rate = new LearnedPrefillRate();
        rate.engineReading("a", 0, 0, 0);
        rate.engineReading("b", 0, 0, 0);
        route(rate, "a", 100, 800, 1_000);
        rate.engineReading("b", 10, 100, 10_000);
        assertEquals(PRIOR, rate.tokensPerSecond(PRIOR));
        rate.engineReading("a", 20, 100, 10_000);
        assertEquals(PRIOR * Math.sqrt(0.8 / 0.2), rate.tokensPerSecond(PRIOR), 1e-6, "b's first tokens left out");
    }

    @Test
    void oldObservationsFade() {
        LearnedPrefillRate rate = new LearnedPrefillRate();
        rate.engineReading("a", 0, 0, 0);
        route(rate, "a", 100, 100, 1_000);
        rate.engineReading("a", 40, 100, 10_000);
        assertEquals(PRIOR * Math.sqrt(0.1 / 0.4), rate.tokensPerSecond(PRIOR), 1e-6);
        long later = 10_000 + (long) (10 * LearnedPrefillRate.FADE_MILLIS);
        route(rate, "a", 100, 400, later - 5_000);
        rate.engineReading("a", 40 + 10, 100 + 100, later);
        assertEquals(
                PRIOR * Math.sqrt(0.4 / 0.1), rate.tokensPerSecond(PRIOR), 5, "ten minutes later the first is gone");
    }

    @Test
    void nonsenseReadingsAndEmptyRequestsLeaveThePrior() {
        LearnedPrefillRate rate = new LearnedPrefillRate();
        rate.engineReading("a", 0, 0, 0);
        rate.engineReading("a", Double.NaN, 100, 1);
        rate.engineReading("a", Double.POSITIVE_INFINITY, 100, 2);
        rate.engineReading("a", -1, 100, 3);
        route(rate, "a", 100, 0, 1_000);
        rate.engineReading("a", 10, 100, 10_000);
        assertEquals(PRIOR, rate.tokensPerSecond(PRIOR), "requests expected at once teach no rate");
        route(rate, "a", 1_000, 1_000_000_000_000_000L, 11_000);
        rate.engineReading("a", 20, 200, 20_000);
        double capped = rate.tokensPerSecond(PRIOR);
        assertEquals(CacheAwarePolicy.MAX_PREFILL_TOKENS_PER_SECOND, capped, "capped");
        assertTrue(capped > PRIOR);
    }
}
