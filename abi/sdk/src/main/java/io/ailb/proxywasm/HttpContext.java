package io.ailb.proxywasm;

/**
 * One HTTP stream. Callbacks arrive in host order: request headers → body chunks → trailers, response headers → body
 * chunks → trailers, then {@link #onLog}, {@link #onDone}, {@link #onDelete} (also after a reset). Host calls made
 * from a callback (headers, bodies, {@link Stream}, {@link Upstreams}) act on this stream; Redis and HTTP-call
 * callbacks started here are routed back to it.
 *
 * <p>Every method defaults to "continue"/no-op. Exceptions are caught by the SDK, logged at ERROR and answered with
 * CONTINUE.
 */
public abstract class HttpContext {
    private final int contextId;

    protected HttpContext(int contextId) {
        this.contextId = contextId;
    }

    public final int contextId() {
        return contextId;
    }

    public HeaderStatus onRequestHeaders(int headerCount, boolean endOfStream) {
        return HeaderStatus.CONTINUE;
    }

    /** {@code bodySize} is the size buffered so far (cumulative after {@link DataStatus#STOP_ITERATION_AND_BUFFER}). */
    public DataStatus onRequestBody(int bodySize, boolean endOfStream) {
        return DataStatus.CONTINUE;
    }

    public HeaderStatus onRequestTrailers(int trailerCount) {
        return HeaderStatus.CONTINUE;
    }

    public HeaderStatus onResponseHeaders(int headerCount, boolean endOfStream) {
        return HeaderStatus.CONTINUE;
    }

    public DataStatus onResponseBody(int bodySize, boolean endOfStream) {
        return DataStatus.CONTINUE;
    }

    public HeaderStatus onResponseTrailers(int trailerCount) {
        return HeaderStatus.CONTINUE;
    }

    /** The stream is complete (or reset); header maps are read-only now. The place to release per-stream state. */
    public void onLog() {}

    public void onDone() {}

    public void onDelete() {}
}
