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
        record(backend, request, nowMs, capacityPerBackend);
    }

    /** As {@link #record(int, SimRequest, long)}; a backend seen for the first time gets {@code capacity}. */
    void record(int backend, SimRequest request, long nowMs, long capacity) {
        perBackend
                .computeIfAbsent(backend, b -> new PrefixLru(capacity, weighByTokens, ttlMs))
                .insert(request.blockIds(), request.blockTokens(), nowMs);
    }

    /**
     * A fixed pseudo-random rank of {@code backend} under {@code key}: the iteration order of a hash map of workers
     * (SGLang's per-node tenant map), which is arbitrary but does not change while the map does not.
     */
    static long tenantOrder(long key, int backend) {
        long z = key * 0x9E3779B97F4A7C15L + backend + 1;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Weight held for {@code backend} (blocks or tokens). */
    long size(int backend) {
        PrefixLru lru = perBackend.get(backend);
        return lru == null ? 0 : lru.size();
    }
}
