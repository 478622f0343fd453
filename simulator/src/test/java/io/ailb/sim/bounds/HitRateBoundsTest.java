package io.ailb.sim.bounds;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.jr.ob.JSON;
import io.ailb.sim.model.SimRequest;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HitRateBoundsTest {
    private static SimRequest req(long id, long arrival, int inputTokens, Long... blocks) {
        return new SimRequest(id, arrival, null, inputTokens, 1, 512, List.of(blocks), "{}");
    }

    @Test
    void infiniteCacheCountsTheLongestPrefixSeenBeforeCappedByInput() {
        List<SimRequest> w = List.of(
                req(1, 0, 1000, 1L, 2L), // miss
                req(2, 10, 1300, 1L, 2L, 3L), // 2 blocks = 1024
                req(3, 20, 400, 1L), // 1 block but only 400 tokens: 400
                req(4, 30, 900, 9L, 2L)); // first block differs: 0 (ids are prefix-chained)
        HitRateBounds.Result r = HitRateBounds.compute(w, 4, 1_000_000);
        assertEquals(3600, r.inputTokens());
        assertEquals(1424, r.infiniteHitTokens());
        assertEquals(1424.0 / 3600, r.infiniteHitRate(), 1e-12);
        // the pool is large enough: same as infinite
        assertEquals(r.infiniteHitTokens(), r.pooledHitTokens());
    }

    @Test
    void withCachedOutputsAnAnswersBlocksCountForTheNextTurn() {
        // turn 1: 1024 prompt tokens (blocks 1, 2) and an answer that fills block 3; turn 2 sends all three and more
        SimRequest first = req(1, 0, 1024, 1L, 2L).withOutputBlockIds(List.of(3L));
        List<SimRequest> w = List.of(first, req(2, 10, 1600, 1L, 2L, 3L, 4L));
        assertEquals(1024, HitRateBounds.compute(w, 1, 1_000_000).infiniteHitTokens());
        assertEquals(1536, HitRateBounds.compute(w, 1, 1_000_000, true).infiniteHitTokens());
        assertEquals(1536, HitRateBounds.compute(w, 1, 1_000_000, true).pooledHitTokens());
        assertArrayEquals(new long[] {0, 1536}, HitRateBounds.infiniteHitTokens(w, true));
        assertArrayEquals(
                new long[] {1024, 0},
                HitRateBounds.infiniteHitTokens(List.of(w.get(1), first), false),
                "per request, in the list's order, replayed by arrival");
    }

    @Test
    void replaysInArrivalOrderNotListOrder() {
        List<SimRequest> w = List.of(req(2, 10, 1024, 1L, 2L), req(1, 0, 1024, 1L, 2L));
        assertEquals(1024, HitRateBounds.compute(w, 1, 10_000).infiniteHitTokens());
    }

    @Test
    void pooledLruForgetsWhatDoesNotFit() {
        // pool = 2 backends × 512 tokens = 2 blocks
        List<SimRequest> w = List.of(
                req(1, 0, 1024, 1L, 2L),
                req(2, 1, 1024, 5L, 6L), // evicts 1, 2
                req(3, 2, 1024, 1L, 2L), // pooled miss, infinite hit 1024
                req(4, 3, 1024, 1L, 2L)); // both hit 1024
        HitRateBounds.Result r = HitRateBounds.compute(w, 2, 512);
        assertEquals(2048, r.infiniteHitTokens());
        assertEquals(1024, r.pooledHitTokens());
        assertEquals(1024L, r.pooledCapacityTokens());
        assertTrue(r.pooledLruHitRate() <= r.infiniteHitRate());
        assertThrows(IllegalArgumentException.class, () -> HitRateBounds.compute(w, 0, 512));
        assertThrows(IllegalArgumentException.class, () -> HitRateBounds.compute(w, 2, 0));
        // N × capacity does not overflow
        assertEquals(2048, HitRateBounds.compute(w, 8, Long.MAX_VALUE).pooledHitTokens());
    }

    /** The Mooncake conversation trace's infinite-cache bound is 37.4% (shared/traces/README.md, anchors §5.1). */
    @Test
    void mooncakeConversationTraceInfiniteBoundIs37Point4Percent() throws IOException {
        Path trace = Paths.get("../../shared/traces/mooncake_conversation_trace.jsonl");
        assertTrue(Files.isRegularFile(trace), "trace not found at " + trace.toAbsolutePath());
        List<SimRequest> workload = readMooncake(trace);
        assertEquals(12_031, workload.size());
        HitRateBounds.Result r = HitRateBounds.compute(workload, 8, 2000L * 512);
        System.out.println("mooncake conversation, 8 x 1,024,000 tokens: " + r);
        assertEquals(37.4, 100 * r.infiniteHitRate(), 0.1);
        assertTrue(r.pooledLruHitRate() < r.infiniteHitRate());
        // anchors §5.1 capacity curve (single global LRU of blocks): 9.8 M tokens → 28.9%
        HitRateBounds.Result pooled = HitRateBounds.compute(workload, 1, 9_800_000);
        System.out.println("mooncake conversation, one pool of 9.8 M tokens: " + pooled);
        assertEquals(28.9, 100 * pooled.pooledLruHitRate(), 1.0);
    }

    static List<SimRequest> readMooncake(Path trace) throws IOException {
        List<SimRequest> out = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(trace, StandardCharsets.UTF_8)) {
            String line;
            long id = 0;
            while ((line = in.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                Map<String, Object> o = JSON.std.mapFrom(line);
                List<Long> ids = new ArrayList<>();
                for (Object h : (List<?>) o.get("hash_ids")) {
                    ids.add(((Number) h).longValue());
                }
                out.add(new SimRequest(
                        id++,
                        ((Number) o.get("timestamp")).longValue(),
                        null,
                        ((Number) o.get("input_length")).intValue(),
                        ((Number) o.get("output_length")).intValue(),
                        512,
                        ids,
                        "{}"));
            }
        }
        return out;
    }
}
