package io.ailb.sim.backend;

import io.ailb.sim.engine.EventScheduler;
import io.ailb.sim.model.SimRequest;

/**
 * What the two backend models share around their schedulers: identity and health, the prefix cache with the KV room
 * reserved next to it, the token counters and the /metrics a scraper sees. Each model keeps its own queue, batch and
 * time estimate.
 */
abstract sealed class QueuedBackend implements Backend permits SimBackend, VllmBackend {
    private final int index;
    private final String address;
    final BackendConfig config;
    final EventScheduler scheduler;
    final Listener listener;
    final PrefixCache cache;
    private final PublishedMetrics published;
    /** KV tokens of admitted blocks not cached yet (allocated, not matchable). */
    long reservedTokens;

    private boolean healthy = true;
    private long prefillTokens;
    private long cachedTokens;
    private long inputTokens;
    /** The engine's time-to-first-token histogram as vLLM exports it: the sum and count of its observations. */
    private double firstTokenSeconds;

    private long firstTokens;

    QueuedBackend(int index, String address, BackendConfig config, EventScheduler scheduler, Listener listener) {
        this.index = index;
        this.address = address;
        this.config = config;
        this.scheduler = scheduler;
        this.listener = listener;
        this.cache = new PrefixCache(config.capacityTokens());
        this.published = new PublishedMetrics(config);
    }

    /** Tokens covered by the first {@code blocks} blocks: full blocks, the last block holds the rest of the prompt. */
    static int tokensOfLeadingBlocks(SimRequest r, int blocks) {
        long tokens = 0;
        int n = r.blockIds().size();
        for (int i = 0; i < blocks; i++) {
            long left = r.inputTokens() - tokens;
            long block = i < n - 1 ? Math.min(r.blockTokens(), left) : left;
            tokens += Math.max(0, block);
        }
        return (int) Math.min(tokens, r.inputTokens());
    }

    /** Whether {@code neededTokens} more fit next to the pinned and reserved ones; an empty batch always admits. */
    final boolean fits(long neededTokens) {
        return running() == 0 || cache.pinnedTokens() + reservedTokens + neededTokens <= cache.capacityTokens();
    }

    /** Counts a request admitted with {@code cached} of its {@code input} prompt tokens found in the cache. */
    final void countAdmitted(int input, int cached) {
        prefillTokens += input - cached;
        cachedTokens += cached;
        inputTokens += input;
    }

    /** Counts a first token {@code sinceSubmitMs} after the request reached this instance. */
    final void countFirstToken(double sinceSubmitMs) {
        firstTokenSeconds += sinceSubmitMs / 1000.0;
        firstTokens++;
    }

    /** Snapshots the state for the scraper; called after every change. */
    final void publish() {
        published.publish(scheduler.nowMs(), running(), waiting(), kvUsage(), firstTokenSeconds, firstTokens);
    }

    /** Time to the first token of {@code request} if it arrived now; see the models for what counts. */
    abstract double estimate(SimRequest request, boolean lookahead);

    @Override
    public final void setHealthy(boolean healthy) {
        this.healthy = healthy;
    }

    @Override
    public final int index() {
        return index;
    }

    @Override
    public final String address() {
        return address;
    }

    @Override
    public final boolean healthy() {
        return healthy;
    }

    @Override
    public final int inFlight() {
        return running() + waiting();
    }

    @Override
    public final double kvUsage() {
        long capacity = cache.capacityTokens();
        long used = cache.pinnedTokens() + reservedTokens;
        return capacity == 0 ? (used > 0 ? 1.0 : 0.0) : Math.min(1.0, used / (double) capacity);
    }

    @Override
    public final String metricsText() {
        return published.text(scheduler.nowMs());
    }

    @Override
    public final int cachedPrefixBlocks(SimRequest request) {
        return cache.match(request.blockIds());
    }

    @Override
    public final long cachedBlocks() {
        return cache.size();
    }

    @Override
    public final double estimatedTtftMs(SimRequest request) {
        return estimate(request, false);
    }

    @Override
    public final double lookaheadTtftMs(SimRequest request) {
        return estimate(request, true);
    }

    @Override
    public final long prefillTokens() {
        return prefillTokens;
    }

    @Override
    public final long cachedTokens() {
        return cachedTokens;
    }

    @Override
    public final long inputTokens() {
        return inputTokens;
    }

    @Override
    public final PrefixCache cache() {
        return cache;
    }

    @Override
    public final BackendConfig config() {
        return config;
    }
}
