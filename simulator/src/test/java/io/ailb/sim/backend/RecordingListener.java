package io.ailb.sim.backend;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.sim.model.SimRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a backend told its listener, by request id; the backend tests read their timings from it. */
final class RecordingListener implements Backend.Listener {
    final Map<Long, Double> firstToken = new LinkedHashMap<>();
    final Map<Long, Double> done = new LinkedHashMap<>();
    final Map<Long, Integer> cached = new LinkedHashMap<>();

    /** A request of {@code input} prompt tokens in 512-token blocks with the given ids, arriving at 0. */
    static SimRequest request(long id, int input, int output, long... blocks) {
        List<Long> ids = new ArrayList<>();
        for (long b : blocks) {
            ids.add(b);
        }
        return new SimRequest(id, 0, null, input, output, 512, ids, "");
    }

    @Override
    public void onFirstToken(Backend backend, SimRequest request, double nowMs, int cachedTokens) {
        firstToken.put(request.id(), nowMs);
        cached.put(request.id(), cachedTokens);
    }

    @Override
    public void onComplete(Backend backend, SimRequest request, double nowMs) {
        assertTrue(firstToken.containsKey(request.id()), "first token before completion");
        done.put(request.id(), nowMs);
    }
}
