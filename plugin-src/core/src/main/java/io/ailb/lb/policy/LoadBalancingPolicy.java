package io.ailb.lb.policy;

import io.ailb.lb.redis.RedisTarget;
import io.ailb.lb.request.RequestParser;
import java.util.Collections;
import java.util.List;

/**
 * One load-balancing policy instance per plugin config rule, living as long as the config in one Wasm VM. The shell
 * calls it on a single thread. Implementations: one sub-package each, registered in {@link PolicyRegistry}.
 */
public interface LoadBalancingPolicy {
    /** The configured {@code lb_policy} name. */
    String name();

    /**
     * True if {@link #select} needs the request body; the shell then buffers the body and selects at its end (or at
     * the headers when there is no body). False lets the shell select at the request headers.
     */
    boolean readsBody();

    /**
     * True if {@link #select} needs the prompt (the messages' prefix hashes and sizes), not just the body's scalar
     * fields ({@code model}, {@code max_tokens}, {@code stream}). False lets the parser skip the messages unread, which
     * is most of a chat body.
     */
    default boolean readsPrompt() {
        return readsBody();
    }

    /** Where the prompt's prefix blocks close (read when {@link #readsPrompt} is true). */
    default RequestParser.BlockBoundaries blockBoundaries() {
        return RequestParser.BlockBoundaries.AFTER_USER;
    }

    /** Decides the upstream for one request. */
    Step select(RequestContext ctx);

    /** Redis services this policy talks to; the shell initialises each distinct one once, at configure time. */
    default List<RedisTarget> redisTargets() {
        return Collections.emptyList();
    }

    /** How often the shell should call {@link #onTick}; 0 means never. */
    default long tickPeriodMillis() {
        return 0;
    }

    /** Periodic work: returns the metric scrapes that are due now (the shell sends each as an HTTP GET). */
    default List<ScrapeRequest> onTick(long nowMillis) {
        return Collections.emptyList();
    }

    /**
     * Called at every tick (when {@link #tickPeriodMillis} is positive): pools what this VM measured with the other VMs
     * of the gateway through {@code state}, the same object for the VM's life, which a policy may keep to pool between
     * ticks too.
     */
    default void shareState(SharedState state, long nowMillis) {}

    /**
     * The outcome of a {@link ScrapeRequest} to {@code host}: the HTTP status (0 when the call failed or timed out)
     * and the body (null when there is none).
     */
    default void onScrapeResult(String host, int httpStatus, String body, long nowMillis) {}
}
