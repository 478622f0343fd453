package io.ailb.sim.bounds;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ailb.sim.backend.BackendConfig;
import io.ailb.sim.model.SimRequest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TtftLowerBoundTest {
    private static final double EPS = 1e-9;

    private static SimRequest req(long id, long arrival, int inputTokens, Long... blocks) {
        return new SimRequest(id, arrival, null, inputTokens, 1, 512, List.of(blocks), "{}");
    }

    @Test
    void eachRequestAloneWithItsInfiniteCacheHit() {
        List<SimRequest> w = List.of(
                req(1, 0, 1024, 1L, 2L), // miss: 1024 tokens
                req(2, 10, 1300, 1L, 2L, 3L), // 1024 cached: 276 tokens
                req(3, 20, 1024, 1L, 2L)); // full hit: one token recomputed
        BackendConfig vllm = BackendConfig.DEFAULT;
        double fixed = vllm.stepFixedMs();
        double[] expected = {fixed + 1024 * 0.0625, fixed + 276 * 0.0625, fixed + 0.0625};
        TtftLowerBound.Result r = TtftLowerBound.of(w, vllm).summary();
        assertEquals(3, r.requests());
        assertEquals((expected[0] + expected[1] + expected[2]) / 3, r.meanMs(), EPS);
        assertEquals(expected[1], r.p50Ms(), EPS);
        assertEquals(expected[0], r.p99Ms(), EPS);

        TtftLowerBound.Result serial =
                TtftLowerBound.of(w, vllm.withModel(BackendConfig.Model.SERIAL)).summary();
        assertEquals((30 + 1024 * 0.0625 + 30 + 276 * 0.0625 + 30) / 3, serial.meanMs(), EPS);

        // The same bounds per request, met by id (the --requests CSV's columns).
        Map<Long, TtftLowerBound.Bound> byId = TtftLowerBound.of(w, vllm).byId();
        assertEquals(new TtftLowerBound.Bound(0, expected[0]), byId.get(1L));
        assertEquals(1024, byId.get(2L).cachedTokens());
        assertEquals(expected[1], byId.get(2L).ttftMs(), EPS);
        assertEquals(1024, byId.get(3L).cachedTokens());
        assertEquals(expected[2], byId.get(3L).ttftMs(), EPS);
    }

    @Test
    void cachedAnswersLowerTheBoundOnlyForModelsThatCacheThem() {
        List<SimRequest> w = List.of(req(1, 0, 512, 1L).withOutputBlockIds(List.of(2L)), req(2, 5, 1536, 1L, 2L, 3L));
        BackendConfig vllm = BackendConfig.DEFAULT;
        assertEquals(
                vllm.stepFixedMs() + 512 * 0.0625,
                TtftLowerBound.of(w, vllm).summary().p50Ms(),
                EPS);
        BackendConfig serial = vllm.withModel(BackendConfig.Model.SERIAL);
        assertEquals(30 + 1024 * 0.0625, TtftLowerBound.of(w, serial).summary().p99Ms(), EPS);
    }
}
