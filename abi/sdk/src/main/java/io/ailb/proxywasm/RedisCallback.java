package io.ailb.proxywasm;

/** Receives the reply of one {@link Redis#call}. */
@FunctionalInterface
public interface RedisCallback {

    /** Runs as the context that made the call (its stream calls act on that stream). */
    void onReply(RedisReply reply);

    /**
     * Runs instead of {@link #onReply} when the context that made the call is gone; it runs as the root context, so
     * only stream-independent host calls (logging, Redis, shared data, metrics) make sense. Use it to undo what the
     * call reserved, e.g. an in-flight count.
     */
    default void onOrphan(RedisReply reply) {}
}
