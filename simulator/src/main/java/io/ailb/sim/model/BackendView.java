package io.ailb.sim.model;

/**
 * What can be known about one simulated LLM instance. Routers that model a real product use only what that product
 * can see (in-flight counts it tracks itself, {@link #metricsText()} with its staleness); {@link #cachedPrefixBlocks}
 * and {@link #estimatedTtftMs} are the perfect knowledge reserved for the oracle and the bounds.
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

    /** Perfect knowledge: the TTFT this instance would give {@code request} if it arrived now, in ms. */
    double estimatedTtftMs(SimRequest request);
}
