package io.ailb.lb.policy.cacheaware;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LearnedPrefillRateTest {
    private static final double PRIOR = 10_000;

    private static void route(LearnedPrefillRate rate, String host, int requests, double tokens, long atMillis) {
        for (int i = 0; i < requests; i++) {
            rate.routed(host, tokens, atMillis);
        }
    }

    @Test
    void theTokensWaitedForOverTheSecondsTheirFirstTokensTookIsTheRate() {
        LearnedPrefillRate rate = new LearnedPrefillRate();
        rate.engineReading("a", 0, 0, 0);
        route(rate, "a", 100, 8_000, 1_000);
        rate.engineReading("a", 50, 100, 10_000);
        assertEquals(16_000, rate.tokensPerSecond(PRIOR), 1e-6);
    }

    @Test
    void firstTokensArePairedWithTheRequestsRoutedOneTimeToFirstTokenEarlier() {
        LearnedPrefillRate rate = new LearnedPrefillRate();
        rate.engineReading("a", 0, 0, 0);
        // Queues grow: requests routed early wait for 2,000 tokens, later ones for 20,000.
        route(rate, "a", 100, 2_000, 1_000);
        route(rate, "a", 100, 20_000, 9_000);
        // The 100 first tokens counted by 10 s took 0.5 s each: they came from requests routed up to 9.5 s, both
        // groups.
        rate.engineReading("a", 50, 100, 10_000);
        assertEquals((2_000 + 20_000) / 2.0 * 100 / 50, rate.tokensPerSecond(PRIOR), 1e-6);

        LearnedPrefillRate lagging = new LearnedPrefillRate();
        lagging.engineReading("a", 0, 0, 0);
        route(lagging, "a", 100, 2_000, 1_000);
        route(lagging, "a", 100, 20_000, 9_000);
        // Each took 8.5 s: the ones routed between -8.5 and 1.5 s.
        lagging.engineReading("a", 850, 100, 10_000);
        assertEquals(2_000 * 100 / 850.0, lagging.tokensPerSecond(PRIOR), 1e-6);
    }

    @Test
    void thePriorHoldsUntilFiftyOfEachAreSeen() {
        LearnedPrefillRate rate = new LearnedPrefillRate();
        rate.engineReading("a", 0, 0, 0);
        route(rate, "a", 49, 8_000, 1_000);
        rate.engineReading("a", 49, 98, 10_000);
        assertEquals(PRIOR, rate.tokensPerSecond(PRIOR), "49 routed");

        LearnedPrefillRate fewFirstTokens = new LearnedPrefillRate();
        fewFirstTokens.engineReading("a", 0, 0, 0);
        route(fewFirstTokens, "a", 100, 8_000, 1_000);
        fewFirstTokens.engineReading("a", 20, 40, 10_000);
        assertEquals(PRIOR, fewFirstTokens.tokensPerSecond(PRIOR), "40 first tokens reported");
        route(fewFirstTokens, "a", 100, 8_000, 11_000);
        fewFirstTokens.engineReading("a", 40, 80, 20_000);
        assertEquals(8_000 / 0.5, fewFirstTokens.tokensPerSecond(PRIOR), 1e-6, "80 of them, faded a little");
    }

    @Test
    void aHostsFirstReadingIsOnlyABaselineAndARestartedEngineStartsOneAgain() {
        LearnedPrefillRate rate = new LearnedPrefillRate();
        route(rate, "a", 100, 1_000, 1_000);
        rate.engineReading("a", 5_000, 10_000, 2_000);
        assertEquals(PRIOR, rate.tokensPerSecond(PRIOR), "what the engine counted before is not what was routed");
        route(rate, "a", 100, 1_000, 3_000);
        rate.engineReading("a", 5_010, 10_100, 12_000);
        assertEquals(10_000, rate.tokensPerSecond(PRIOR), 1e-3);
        rate.engineReading("a", 1, 10, 13_000);
        route(rate, "a", 100, 1_000, 14_000);
        rate.engineReading("a", 21, 110, 22_000);
        double keep = Math.exp(-10_000 / LearnedPrefillRate.FADE_MILLIS);
        assertEquals(
                100_000 * (keep + 1) / (10 * keep + 20),
                rate.tokensPerSecond(PRIOR),
                1e-6,
                "after the restart, from its baseline");
    }

    @Test
    void firstTokensOfAHostWithoutUnstreamedRequestsFromHereAreNotPaired() {
        LearnedPrefillRate rate = new LearnedPrefillRate();
        rate.engineReading("a", 0, 0, 0);
        rate.engineReading("b", 0, 0, 0);
        route(rate, "a", 100, 1_000, 1_000);
        rate.engineReading("b", 10, 100, 10_000);
        assertEquals(PRIOR, rate.tokensPerSecond(PRIOR));
        rate.engineReading("a", 20, 100, 10_000);
        assertEquals(5_000, rate.tokensPerSecond(PRIOR), 1e-6, "b's first tokens left out");
    }

    @Test
    void oldObservationsFade() {
        LearnedPrefillRate rate = new LearnedPrefillRate();
        rate.engineReading("a", 0, 0, 0);
        route(rate, "a", 100, 1_000, 1_000);
        rate.engineReading("a", 40, 100, 10_000);
        assertEquals(2_500, rate.tokensPerSecond(PRIOR), 1e-6);
        long later = 10_000 + (long) (10 * LearnedPrefillRate.FADE_MILLIS);
        route(rate, "a", 100, 4_000, later - 5_000);
        rate.engineReading("a", 40 + 20, 100 + 100, later);
        assertEquals(20_000, rate.tokensPerSecond(PRIOR), 5, "ten minutes later the first window is gone");
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
        assertEquals(PRIOR, rate.tokensPerSecond(PRIOR), "requests with nothing to prefill teach no rate");
        route(rate, "a", 1_000, 1e12, 11_000);
        rate.engineReading("a", 20, 200, 20_000);
        assertEquals(CacheAwarePolicy.MAX_PREFILL_TOKENS_PER_SECOND, rate.tokensPerSecond(PRIOR), "capped");
    }
}
