package io.ailb.sim.model;

/**
 * What can be known about one simulated LLM instance. Routers that model a real product use only what that product
 * can see (in-flight counts it tracks itself, {@link #metricsText()} with its staleness); {@link #cachedPrefixBlocks},
 * {@link #cachedBlocks}, {@link #estimatedTtftMs} and {@link #lookaheadTtftMs} are perfect knowledge, for the
 * reference routers and for modelling products that receive the engines' KV events.
 */
public interface BackendView {
    int index();

    /** {@code ip:port}, as the gateway's upstream host list shows it. */
    String address();

    boolean healthy();

    /** Requests admitted and not finished (running + waiting). */
    int inFlight();

    /** Requests waiting for a batch slot. */
    int waiting();

    /** Requests in the running batch. */
    int running();

    /** KV-cache blocks in use by running sequences / capacity, in [0, 1]. */
    double kvUsage();

    /** KV blocks held by in-flight sequences (Dynamo's decode-load term). */
    long activeBlocks();

    /** The instance's /metrics text as last published (stale by the configured delay), vLLM names. */
    String metricsText();

    /** Perfect knowledge: how many leading blocks of {@code request} this instance's cache holds now. */
    int cachedPrefixBlocks(SimRequest request);

    /** Perfect knowledge: blocks in this instance's prefix cache. */
    long cachedBlocks();

    /**
     * Perfect knowledge: the TTFT this instance would give {@code request} if it arrived now, in ms, judging every
     * queued prefill and this one against the cache as it is now (blind to what the queued requests will have cached
     * by the time this one runs).
     */
    double estimatedTtftMs(SimRequest request);

    /**
     * Perfect knowledge: as {@link #estimatedTtftMs} but each prefill counts the blocks of the prefills queued ahead of
     * it as cached (they will be by then); no future arrivals, no eviction.
     */
    double lookaheadTtftMs(SimRequest request);
}
