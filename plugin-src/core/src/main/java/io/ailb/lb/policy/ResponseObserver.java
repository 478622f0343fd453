package io.ailb.lb.policy;

/**
 * What a policy learns about a request it decided: a Step carries one ({@link Step#withResponseObserver}) when the
 * policy keeps statistics from responses (cluster_metrics). The flow calls it on the VM's single thread, in this order:
 * {@link #onApplied} once, when the Step took effect; then any of {@link #onResponseHeaders} and
 * {@link #onFirstResponseBody} (each at most once, possibly neither: a reset, a timeout); then {@link #onStreamEnd}
 * exactly once. A Step that never took effect (the stream ended first, the header could not be written) gets no call,
 * so nothing counted at {@link #onApplied} can leak.
 */
public interface ResponseObserver {
    /** The decision took effect: the request goes where the Step said. */
    void onApplied(long nowMillis);

    /** The response headers passed the filter; {@code status} is the {@code :status} value, 0 when absent or bad. */
    void onResponseHeaders(int status, long nowMillis);

    /** The first response body byte passed the filter: the backend produced its first token. */
    void onFirstResponseBody(long nowMillis);

    /** The stream is over, whatever the way (complete, local reply, reset). */
    void onStreamEnd(long nowMillis);
}
