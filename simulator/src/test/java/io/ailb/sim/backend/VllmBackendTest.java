package io.ailb.sim.backend;

import static io.ailb.sim.backend.RecordingListener.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.sim.model.SimRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The vLLM step model against hand-computed cases. Defaults: 62.5 µs per token, a step costs 11.9375 ms + tokens ×
 * 0.0625 ms (so a one-token decode step is the 12 ms ITL), budget 8,192 tokens; 512-token blocks.
 */
class VllmBackendTest {
    private static final double EPS = 1e-9;
    private static final double FIXED = 11.9375;
    private static final double PER_TOKEN = 0.0625;
    private static final BackendConfig CONFIG =
            BackendConfig.DEFAULT.withMaxNumSeqs(4).withMetricsStalenessMs(0);

    private final ManualScheduler clock = new ManualScheduler();
    private final RecordingListener seen = new RecordingListener();

    private VllmBackend backend(BackendConfig config) {
        return new VllmBackend(0, Backend.addressOf(0), config, clock, seen);
    }

    private static long[] range(long from, int count) {
        long[] r = new long[count];
        for (int i = 0; i < count; i++) {
            r[i] = from + i;
        }
        return r;
    }

    @Test
    void theDefaultsMatchTheFormerModelsSpeeds() {
        assertEquals(BackendConfig.Model.VLLM, BackendConfig.DEFAULT.model());
        assertEquals(8192, BackendConfig.DEFAULT.stepBudgetTokens());
        assertEquals(FIXED, BackendConfig.DEFAULT.stepFixedMs(), EPS);
        assertEquals(12.0, BackendConfig.DEFAULT.stepMs(1), EPS, "a lone decode step is the ITL");
        assertEquals(FIXED + 1000 * PER_TOKEN, BackendConfig.DEFAULT.loneTtftMs(1000, 0), EPS);
        assertEquals(12.0, BackendConfig.DEFAULT.loneTtftMs(1000, 1000), EPS, "a full hit still computes one token");
        assertEquals(2 * FIXED + 10_000 * PER_TOKEN, BackendConfig.DEFAULT.loneTtftMs(10_000, 0), EPS, "two chunks");
        assertEquals(
                30 + 1000 * PER_TOKEN,
                BackendConfig.DEFAULT.withModel(BackendConfig.Model.SERIAL).loneTtftMs(1000, 0),
                EPS);
    }

    @Test
    void oneRequestPrefillsInOneStepThenDecodesOneTokenPerStep() {
        VllmBackend b = backend(CONFIG);
        b.submit(request(1, 1024, 11, 1, 2));
        clock.runAll();

        assertEquals(FIXED + 1024 * PER_TOKEN, seen.firstToken.get(1L), EPS); // 75.9375
        assertEquals(75.9375 + 10 * 12.0, seen.done.get(1L), EPS);
        assertEquals(0, seen.cached.get(1L));
        assertEquals(1024, b.prefillTokens());
        assertTrue(b.cache().contains(1) && b.cache().contains(2));
        assertEquals(0, b.cache().pinnedBlocks(), "unpinned after completion");
    }

    @Test
    void aLongPromptIsSplitIntoBudgetSizedChunksWhoseBlocksAreMatchableWhenScheduled() {
        VllmBackend b = backend(CONFIG.withStepBudgetTokens(1000));
        b.submit(request(1, 2500, 1, range(1, 5)));
        clock.runUntil(0);
        assertEquals(5, b.activeBlocks(), "one block cached and pinned, four allocated for the rest of the prompt");
        // the first step schedules tokens 0..999: block 1 (0..511) is complete, block 2 (512..1023) is not
        assertTrue(b.cache().contains(1));
        assertFalse(b.cache().contains(2));
        assertEquals(1, b.cachedPrefixBlocks(request(9, 1024, 1, 1, 2)));
        clock.runAll();
        // chunks 1000, 1000, 500: three steps
        assertEquals(3 * FIXED + 2500 * PER_TOKEN, seen.firstToken.get(1L), EPS); // 192.0625
        assertEquals(seen.firstToken.get(1L), seen.done.get(1L), EPS, "one output token: done at the first");
    }

    @Test
    void twoRequestsArrivingTogetherShareAStepAndThePrefix() {
        VllmBackend b = backend(CONFIG);
        b.submit(request(1, 1024, 2, 1, 2));
        b.submit(request(2, 1536, 1, 1, 2, 3));
        clock.runAll();

        // one step: the first computes 1024 tokens and its blocks are matchable at once; the second finds them and
        // computes its last 512
        double step = FIXED + 1536 * PER_TOKEN; // 107.9375
        assertEquals(step, seen.firstToken.get(1L), EPS);
        assertEquals(step, seen.firstToken.get(2L), EPS);
        assertEquals(0, seen.cached.get(1L));
        assertEquals(1024, seen.cached.get(2L));
        assertEquals(step + 12.0, seen.done.get(1L), EPS);
        assertEquals(1024 + 512, b.prefillTokens());
        assertEquals(1024, b.cachedTokens());
    }

    @Test
    void aFullHitStillComputesItsLastToken() {
        VllmBackend b = backend(CONFIG);
        b.submit(request(1, 1024, 1, 1, 2));
        clock.runUntil(1000);
        b.submit(request(2, 1024, 1, 1, 2));
        clock.runAll();
        assertEquals(1023, seen.cached.get(2L));
        assertEquals(1000 + 12.0, seen.firstToken.get(2L), EPS);
    }

    @Test
    void runningDecodesAreScheduledFirstAndPrefillsTakeTheRestOfTheBudget() {
        VllmBackend b = backend(CONFIG.withStepBudgetTokens(100));
        b.submit(request(1, 50, 3, 1));
        clock.runUntil(1);
        b.submit(request(2, 250, 1, 2));
        clock.runAll();

        double step1 = FIXED + 50 * PER_TOKEN; // 15.0625: the first's prompt
        double full = FIXED + 100 * PER_TOKEN; // 18.1875: one decode + 99 prompt tokens of the second
        double last = FIXED + 52 * PER_TOKEN; // 15.1875: the second's last 52 tokens
        assertEquals(step1, seen.firstToken.get(1L), EPS);
        assertEquals(step1 + 2 * full, seen.done.get(1L), EPS, "two decode steps");
        assertEquals(step1 + 2 * full + last, seen.firstToken.get(2L), EPS); // 66.625
    }

    @Test
    void generatedBlocksAreCachedAsTheyFillSoTheNextTurnHitsTheAnswer() {
        VllmBackend b = backend(CONFIG);
        // 512 prompt tokens (block 1) and 600 output tokens: prompt + output fill a second block, id 7
        b.submit(request(1, 512, 600, 1).withOutputBlockIds(List.of(7L)));
        double first = FIXED + 512 * PER_TOKEN; // 43.9375
        clock.runUntil(first + 510 * 12.0);
        assertFalse(b.cache().contains(7), "511 tokens generated: the block is not full");
        clock.runUntil(first + 511 * 12.0);
        assertTrue(b.cache().contains(7), "512 tokens generated: the block is full and cached");
        clock.runUntil(8000);
        assertEquals(first + 599 * 12.0, seen.done.get(1L), EPS);

        b.submit(request(2, 1100, 1, 1, 7, 8));
        clock.runAll();
        assertEquals(1024, seen.cached.get(2L), "the follow-up finds the prompt and the answer's block");
        assertEquals(8000 + FIXED + 76 * PER_TOKEN, seen.firstToken.get(2L), EPS);
    }

    @Test
    void blocksOfRunningSequencesArePinnedAndANewSequenceWaitsForKvSpace() {
        VllmBackend b = backend(CONFIG.withCapacityTokens(1024));
        b.submit(request(1, 1024, 101, 1, 2));
        clock.runUntil(100);
        b.submit(request(2, 512, 1, 3));
        clock.runUntil(500);
        assertEquals(1, b.waiting(), "the cache is full of pinned blocks");
        assertEquals(1.0, b.kvUsage(), EPS);
        assertEquals(2, b.activeBlocks());
        clock.runAll();
        double doneFirst = FIXED + 1024 * PER_TOKEN + 100 * 12.0;
        assertEquals(doneFirst, seen.done.get(1L), EPS);
        assertEquals(doneFirst + FIXED + 512 * PER_TOKEN, seen.firstToken.get(2L), EPS);
    }

    @Test
    void maxNumSeqsLimitsTheBatch() {
        VllmBackend b = backend(CONFIG.withMaxNumSeqs(1));
        b.submit(request(1, 1024, 3, 1, 2));
        b.submit(request(2, 1024, 1, 3, 4));
        clock.runUntil(0);
        assertEquals(1, b.running());
        assertEquals(1, b.waiting());
        clock.runAll();
        double doneFirst = FIXED + 1024 * PER_TOKEN + 2 * 12.0;
        assertEquals(doneFirst, seen.done.get(1L), EPS);
        assertEquals(doneFirst + FIXED + 1024 * PER_TOKEN, seen.firstToken.get(2L), EPS);
    }

    @Test
    void estimatesWaitForTheStepUnderWayAndTheQueueWithOrWithoutLookahead() {
        VllmBackend b = backend(CONFIG.withMaxNumSeqs(1));
        b.submit(request(1, 1024, 5, 1, 2));
        b.submit(request(2, 1024, 5, 3, 4));
        clock.runUntil(1);
        double rest = FIXED + 1024 * PER_TOKEN - 1; // the first's prefill step ends at 75.9375
        SimRequest probe = request(3, 1536, 1, 3, 4, 5);
        // blind: the queued request's 1024 tokens and all 1536 of this one, in one step
        assertEquals(rest + FIXED + 2560 * PER_TOKEN, b.estimatedTtftMs(probe), EPS);
        // lookahead: the queued request will have cached blocks 3, 4: this one computes 512
        assertEquals(rest + FIXED + 1536 * PER_TOKEN, b.lookaheadTtftMs(probe), EPS);
    }

    @Test
    void metricsReportTheCacheSizeForAutoTuningRouters() {
        VllmBackend b = backend(CONFIG);
        assertTrue(
                b.metricsText().contains("vllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"62500\""),
                b.metricsText());
        b.submit(request(1, 1024, 5, 1, 2));
        clock.runUntil(1);
        assertTrue(b.metricsText().contains("vllm:num_requests_running{model_name=\"sim\"} 1\n"), b.metricsText());
    }
}
