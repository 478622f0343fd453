package io.ailb.sim.backend;

import static io.ailb.sim.backend.RecordingListener.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The serial and parallel backend models against hand-computed timings and cache contents. */
class SimBackendTest {
    private static final double EPS = 1e-9;

    /** Serial prefill, 30 ms overhead, 62.5 µs/token, 12 ms ITL, ×2 at 4 sequences, 512-token blocks. */
    private static final BackendConfig CONFIG = BackendConfig.DEFAULT
            .withModel(BackendConfig.Model.SERIAL)
            .withMaxNumSeqs(4)
            .withMetricsStalenessMs(0);

    private final ManualScheduler clock = new ManualScheduler();
    private final RecordingListener seen = new RecordingListener();

    private SimBackend backend(BackendConfig config) {
        return new SimBackend(0, Backend.addressOf(0), config, clock, seen);
    }

    @Test
    void ttftIsOverheadPlusUncachedTokensTimesPrefillTimeAndDecodeIsOutputMinusOneTimesItl() {
        SimBackend b = backend(CONFIG);
        b.submit(request(1, 1024, 11, 1, 2));
        clock.runAll();

        assertEquals(30 + 1024 * 0.0625, seen.firstToken.get(1L), EPS); // 94 ms
        assertEquals(94 + 10 * 12.0, seen.done.get(1L), EPS); // alone: load factor 1.0
        assertEquals(0, seen.cached.get(1L));
    }

    @Test
    void aRequestExtendingACachedPrefixPrefillsOnlyItsNewTokens() {
        SimBackend b = backend(CONFIG);
        b.submit(request(1, 1024, 1, 1, 2));
        clock.runUntil(300);
        b.submit(request(2, 1300, 1, 1, 2, 3));
        clock.runAll();

        assertEquals(1024, seen.cached.get(2L));
        assertEquals(300 + 30 + (1300 - 1024) * 0.0625, seen.firstToken.get(2L), EPS); // 347.25
        assertEquals(1024 + 276, b.prefillTokens());
        assertEquals(1024, b.cachedTokens());
        assertEquals(2, b.cachedPrefixBlocks(request(9, 2048, 1, 1, 2, 7)));
    }

    @Test
    void prefillsRunOneAtATimeAndDecodeSlowsWithTheBatch() {
        SimBackend b = backend(CONFIG);
        b.submit(request(1, 1024, 101, 1, 2));
        b.submit(request(2, 1024, 101, 3, 4));
        assertEquals(1, b.running());
        assertEquals(1, b.waiting());
        clock.runAll();

        assertEquals(94, seen.firstToken.get(1L), EPS);
        assertEquals(188, seen.firstToken.get(2L), EPS); // waited for the first prefill
        assertEquals(94 + 100 * 12.0, seen.done.get(1L), EPS); // batch of 1 at its first token
        double factor = 1 + (2.0 - 1) * (2 - 1) / (4.0 - 1); // batch of 2 of max 4
        assertEquals(188 + 100 * 12.0 * factor, seen.done.get(2L), EPS);
    }

    @Test
    void maxNumSeqsQueuesRequestsUntilABatchSlotFrees() {
        SimBackend b = backend(CONFIG.withMaxNumSeqs(1));
        b.submit(request(1, 1024, 11, 1, 2));
        b.submit(request(2, 1024, 11, 3, 4));
        clock.runUntil(100);
        assertEquals(1, b.running());
        assertEquals(1, b.waiting(), "the batch is full although the prefill is done");
        clock.runAll();

        assertEquals(214, seen.done.get(1L), EPS);
        assertEquals(214 + 94, seen.firstToken.get(2L), EPS);
        assertEquals(214 + 94 + 120, seen.done.get(2L), EPS);
    }

    @Test
    void leastRecentlyUsedBlocksAreEvictedTailFirst() {
        SimBackend b = backend(CONFIG.withCapacityTokens(1024)); // two blocks
        b.submit(request(1, 1024, 1, 1, 2));
        clock.runAll();
        b.submit(request(2, 512, 1, 3));
        clock.runAll();
        assertTrue(b.cache().contains(1) && b.cache().contains(3));
        assertFalse(b.cache().contains(2), "the tail of the older prefix went first");

        b.submit(request(3, 1024, 1, 1, 2));
        clock.runAll();
        assertEquals(512, seen.cached.get(3L));
        assertFalse(b.cache().contains(3), "block 3 was least recently used");
        assertEquals(2, b.cache().evictions());
    }

    @Test
    void blocksOfRunningSequencesArePinnedAndANewSequenceWaitsForKvSpace() {
        SimBackend b = backend(CONFIG.withCapacityTokens(1024));
        b.submit(request(1, 1024, 101, 1, 2)); // fills the cache and runs 94 + 1200 ms
        clock.runUntil(100);
        b.submit(request(2, 512, 1, 3)); // needs one more block: must wait
        clock.runUntil(500);
        assertEquals(1, b.waiting());
        assertTrue(b.cache().contains(1) && b.cache().contains(2), "pinned blocks are never evicted");
        assertEquals(1.0, b.kvUsage(), EPS);
        clock.runAll();

        assertEquals(1294, seen.done.get(1L), EPS);
        assertEquals(1294 + 30 + 32, seen.firstToken.get(2L), EPS);
    }

    @Test
    void metricsUseVllmNamesAndAreStaleByTheConfiguredDelay() {
        SimBackend b = backend(CONFIG.withMetricsStalenessMs(50).withMaxNumSeqs(1));
        b.submit(request(1, 1024, 101, 1, 2));
        b.submit(request(2, 1024, 101, 3, 4));
        clock.runUntil(10);
        assertTrue(
                b.metricsText().contains("vllm:num_requests_running{model_name=\"sim\"} 0\n"),
                "nothing visible before 50 ms: " + b.metricsText());
        clock.runUntil(60);
        String text = b.metricsText();
        assertTrue(text.contains("vllm:num_requests_running{model_name=\"sim\"} 1\n"), text);
        assertTrue(text.contains("vllm:num_requests_waiting{model_name=\"sim\"} 1\n"), text);
        assertTrue(text.contains("vllm:gpu_cache_usage_perc{model_name=\"sim\"} 0.0010\n"), text);
        assertTrue(text.contains("vllm:kv_cache_usage_perc"), text);
        assertTrue(text.contains("vllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"62500\""), text);
    }

    @Test
    void theLoadFactorIsOneAloneAndTheFullFactorAtMaxNumSeqs() {
        assertEquals(1.0, CONFIG.loadFactor(1), EPS);
        assertEquals(2.0, CONFIG.loadFactor(4), EPS);
        assertEquals(2.0, CONFIG.loadFactor(9), EPS);
        assertEquals(1.5, BackendConfig.DEFAULT.withMaxNumSeqs(5).loadFactor(3), EPS);
    }

    @Test
    void theEstimatedTtftCountsThePrefillsAhead() {
        SimBackend b = backend(CONFIG);
        b.submit(request(1, 1024, 11, 1, 2));
        b.submit(request(2, 1024, 11, 3, 4));
        b.submit(request(3, 1024, 11, 5, 6));
        clock.runUntil(4);
        // 90 ms left of the first, 94 for each queued one, block 1 not cached until the first prefill ends: 94
        assertEquals(90 + 94 + 94 + 94, b.estimatedTtftMs(request(4, 1024, 1, 1, 7)), EPS);
        clock.runUntil(100);
        // the second prefill ends at 188, the third (queued) takes 94; block 1 is cached now: 30 + 512 × 0.0625
        assertEquals(88 + 94 + 62, b.estimatedTtftMs(request(4, 1024, 1, 1, 7)), EPS);
    }

    @Test
    void theLookaheadEstimateCountsTheBlocksOfThePrefillsAheadAsCached() {
        SimBackend b = backend(CONFIG);
        b.submit(request(1, 1024, 11, 1, 2));
        b.submit(request(2, 1024, 11, 3, 4));
        b.submit(request(3, 1300, 11, 1, 2, 5));
        clock.runUntil(4);
        // blind: 90 ms left of the first; 94 for the second; the third judged on today's cache: 30 + 1300 × 0.0625
        assertEquals(90 + 94 + 111.25 + 94, b.estimatedTtftMs(request(4, 1024, 1, 1, 7)), EPS);
        // lookahead: the third finds the first's blocks 1, 2 (30 + 276 × 0.0625 = 47.25), this one block 1 (62)
        assertEquals(90 + 94 + 47.25 + 62, b.lookaheadTtftMs(request(4, 1024, 1, 1, 7)), EPS);
        // a queued request's blocks count too: 3, 4 of the second, so this one computes nothing (30)
        assertEquals(90 + 94 + 47.25 + 30, b.lookaheadTtftMs(request(5, 1024, 1, 3, 4)), EPS);
    }

    @Test
    void theParallelModelStartsEveryPrefillAtOnce() {
        SimBackend b = backend(CONFIG.withModel(BackendConfig.Model.PARALLEL));
        b.submit(request(1, 1024, 1, 1, 2));
        b.submit(request(2, 1024, 1, 3, 4));
        assertEquals(2, b.running());
        clock.runAll();
        assertEquals(94, seen.firstToken.get(1L), EPS);
        assertEquals(94, seen.firstToken.get(2L), EPS);
    }
}
