package io.ailb.sim.router.baseline;

import io.ailb.sim.bounds.PrefixLru;
import io.ailb.sim.model.SimRequest;
import java.util.HashMap;
import java.util.Map;

/**
 * A router's own approximate picture of each backend's prefix cache, built only from what it routed: after choosing
 * backend b for a request, all of the request's block ids are recorded under b (llm-d's approx-prefix-cache-producer,
 * SGLang's approximate tree, Dynamo's ApproxKvIndexer). One {@link PrefixLru} per backend index.
 */
final class ApproxPrefixIndex {
    private final long capacityPerBackend;
    private final boolean weighByTokens;
    private final long ttlMs;
    private final Map<Integer, PrefixLru> perBackend = new HashMap<>();

    ApproxPrefixIndex(long capacityPerBackend, boolean weighByTokens, long ttlMs) {
        this.capacityPerBackend = capacityPerBackend;
        this.weighByTokens = weighByTokens;
        this.ttlMs = ttlMs;
    }

    /** Leading blocks of {@code request} this router believes {@code backend} holds. */
    int match(int backend, SimRequest request, long nowMs) {
        PrefixLru lru = perBackend.get(backend);
        return lru == null ? 0 : lru.match(request.blockIds(), nowMs);
    }

    void record(int backend, SimRequest request, long nowMs) {
        perBackend.computeIfAbsent(backend, b -> new PrefixLru(capacityPerBackend, weighByTokens, ttlMs))
                .insert(request.blockIds(), request.blockTokens(), nowMs);
    }

    /** Weight held for {@code backend} (blocks or tokens). */
    long size(int backend) {
        PrefixLru lru = perBackend.get(backend);
        return lru == null ? 0 : lru.size();
    }
}
