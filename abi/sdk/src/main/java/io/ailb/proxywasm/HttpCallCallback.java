package io.ailb.proxywasm;

/** Receives the response of one {@link HttpCall}. */
@FunctionalInterface
public interface HttpCallCallback {

    /** Runs as the context that made the call; check {@link HttpCallResponse#isFailure()} first. */
    void onResponse(HttpCallResponse response);

    /** Runs on the root context instead of {@link #onResponse} when the calling stream is gone. */
    default void onOrphan(HttpCallResponse response) {}
}
