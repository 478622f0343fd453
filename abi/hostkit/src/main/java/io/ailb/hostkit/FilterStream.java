package io.ailb.hostkit;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * The rules by which Envoy's filter manager drives one HTTP stream through a proxy-wasm filter, kept apart from how the
 * filter is called, so that the JVM fake host and the Wasm emulator follow the same rules.
 *
 * <p>A body chunk extends the buffered body while the filter buffers ({@code body_size} is cumulative); after a
 * {@code StopAllIteration} headers status Envoy buffers chunks without calling the filter and hands them over in one
 * callback on continue; on the response side {@code StopIteration} acts as {@code StopAllIteration}; what the filter
 * asked for during a callback (continue, local reply, close) takes effect after the callback returns; a local reply
 * passes the filter's response callbacks and ends the stream; header maps are read-only once they went on, and all of
 * them during {@code proxy_on_log}.
 *
 * @param <H> the host's header map
 * @param <R> the host's local reply
 */
public final class FilterStream<H, R> {
    // proxy-wasm ABI status values; the hosts' generated bindings name them too, but this module sits below both
    private static final int HEADERS_CONTINUE = 0;
    private static final int HEADERS_STOP_ITERATION = 1;
    private static final int HEADERS_CONTINUE_AND_END_STREAM = 2;
    private static final int DATA_CONTINUE = 0;
    private static final int DATA_STOP_ITERATION_AND_BUFFER = 1;
    private static final int DATA_STOP_ITERATION_NO_BUFFER = 3;
    /** Envoy's stock per-connection buffer limit (listener {@code per_connection_buffer_limit_bytes}), 1 MiB. */
    public static final long ENVOY_DEFAULT_BUFFER_LIMIT = 1 << 20;

    /** How the host calls the filter and runs its queue. */
    public interface Host<H, R> {
        /** {@code proxy_on_request_headers} or {@code proxy_on_response_headers}; the status as the host reports it. */
        int onHeaders(boolean request, int count, boolean endOfStream);

        /** {@code proxy_on_request_body} or {@code proxy_on_response_body}. */
        int onBody(boolean request, int size, boolean endOfStream);

        /** {@code proxy_on_request_trailers} or {@code proxy_on_response_trailers}. */
        int onTrailers(boolean request, int count);

        /** {@code proxy_on_log}, {@code proxy_on_done} and {@code proxy_on_delete}. */
        void onEnd();

        /** The stream is over: the host drops it. */
        void forget();

        /** Runs {@link #applyDeferred()} once the current guest call returned. */
        void defer();

        /** Delivers what is due (answered callouts) before a {@code send} returns. */
        void settle();

        int count(H headers);

        /** The response headers Envoy sends for a local reply: {@code :status}, the reply's, content length and type. */
        H replyHeaders(R reply);

        byte[] replyBody(R reply);

        /**
         * The local reply Envoy sends when a filter buffers more request body than the stream's buffer limit: 413
         * Payload Too Large (counted by Envoy as {@code downstream_rq_too_large}).
         */
        R payloadTooLarge();

        /** Whether sends bypass the filter (the VM is gone); the host may {@link #fail} the stream or pass it. */
        boolean bypassed(FilterStream<H, R> stream, boolean request);
    }

    private final Host<H, R> host;
    private final int contextId;
    private final Direction<H> request = new Direction<>(true);
    private final Direction<H> response = new Direction<>(false);
    private String upstreamOverride;
    private boolean overrideAfterRouting;
    private R localReply;
    private R pendingLocalReply;
    private boolean continueRequest;
    private boolean continueResponse;
    private boolean closeRequested;
    private boolean inLog;
    private boolean ended;

    /** One direction as the filter sees it. */
    private static final class Direction<H> {
        final boolean isRequest;
        H headers;
        H trailers;
        byte[] buffered = new byte[0];
        final ByteArrayOutputStream forwarded = new ByteArrayOutputStream();
        boolean headersHeld;
        boolean headersForwarded;
        boolean stopAll;
        boolean endSeen;
        boolean endForwarded;

        Direction(boolean isRequest) {
            this.isRequest = isRequest;
        }

        boolean paused() {
            return headersHeld || stopAll || buffered.length > 0 || (endSeen && !endForwarded && headers != null);
        }
    }

    /** Request body bytes the filter may have buffered; past it a buffering filter gets a 413 (no limit unless set). */
    private long requestBufferLimit = Long.MAX_VALUE;

    public FilterStream(Host<H, R> host, int contextId) {
        this.host = host;
        this.contextId = contextId;
    }

    // ---- driving

    public int sendHeaders(boolean requestSide, H headers, boolean endOfStream) {
        Direction<H> direction = direction(requestSide);
        if (ignored(direction)) {
            return HEADERS_CONTINUE;
        }
        if (direction.headers != null) {
            throw new IllegalStateException(name(direction) + " headers were already sent on stream " + contextId);
        }
        direction.headers = headers;
        direction.endSeen = endOfStream;
        int action = headersCallback(direction);
        host.settle();
        return action;
    }

    /**
     * One body chunk; with {@code strictEnd} a chunk after the direction's end is a caller's bug, else a late end flag
     * is kept.
     */
    public int sendBody(boolean requestSide, byte[] chunk, boolean endOfStream, boolean strictEnd) {
        Direction<H> direction = direction(requestSide);
        if (ignored(direction)) {
            return DATA_CONTINUE;
        }
        if (direction.headers == null) {
            throw new IllegalStateException("send the " + name(direction) + " headers before its body");
        }
        if (strictEnd && direction.endSeen) {
            throw new IllegalStateException("the " + name(direction) + " of stream " + contextId + " has ended");
        }
        direction.buffered = concat(direction.buffered, chunk);
        direction.endSeen |= endOfStream;
        if (direction.stopAll) {
            if (overBufferLimit(direction)) {
                tooLarge();
            }
            return DATA_STOP_ITERATION_AND_BUFFER;
        }
        int action = bodyCallback(direction);
        if (action == DATA_STOP_ITERATION_AND_BUFFER && overBufferLimit(direction) && !ended && localReply == null) {
            tooLarge();
        }
        host.settle();
        return action;
    }

    public int sendTrailers(boolean requestSide, H trailers) {
        Direction<H> direction = direction(requestSide);
        if (ignored(direction)) {
            return HEADERS_CONTINUE;
        }
        direction.trailers = trailers;
        direction.endSeen = true;
        if (direction.stopAll) {
            return HEADERS_STOP_ITERATION;
        }
        int action = host.onTrailers(direction.isRequest, host.count(trailers));
        if (action == HEADERS_CONTINUE && pendingLocalReply == null && !ended) {
            forward(direction);
        }
        host.settle();
        return action;
    }

    /** The stream finished or was reset: the end callbacks run now, also while a callout is due. */
    public void end() {
        finish();
        host.settle();
    }

    private int headersCallback(Direction<H> direction) {
        int action = host.onHeaders(direction.isRequest, host.count(direction.headers), direction.endSeen);
        if (pendingLocalReply != null || ended) {
            return action;
        }
        if (action == HEADERS_CONTINUE || action == HEADERS_CONTINUE_AND_END_STREAM) {
            forward(direction);
        } else {
            direction.headersHeld = true;
            direction.stopAll = action != HEADERS_STOP_ITERATION || !direction.isRequest;
        }
        return action;
    }

    private int bodyCallback(Direction<H> direction) {
        int action = host.onBody(direction.isRequest, direction.buffered.length, direction.endSeen);
        if (pendingLocalReply != null || ended) {
            return action;
        }
        if (action == DATA_CONTINUE) {
            forward(direction);
        } else if (action == DATA_STOP_ITERATION_NO_BUFFER) {
            direction.buffered = new byte[0];
        }
        return action;
    }

    /** Lets everything held in this direction go on; a complete response ends the stream. */
    private void forward(Direction<H> direction) {
        direction.headersHeld = false;
        direction.stopAll = false;
        direction.headersForwarded = true;
        direction.forwarded.writeBytes(direction.buffered);
        direction.buffered = new byte[0];
        if (direction.endSeen) {
            direction.endForwarded = true;
            if (!direction.isRequest) {
                finish();
            }
        }
    }

    /** {@code proxy_continue_stream}: after StopAll the buffered body reaches the filter in one callback. */
    private void resume(Direction<H> direction) {
        if (direction.headers == null || direction.endForwarded) {
            return;
        }
        if (direction.stopAll && direction.buffered.length > 0) {
            direction.stopAll = false;
            direction.headersHeld = false;
            direction.headersForwarded = true;
            bodyCallback(direction);
        } else {
            forward(direction);
        }
    }

    /** Runs once the guest call that asked for them has returned: local reply, close, continue. */
    public void applyDeferred() {
        if (ended) {
            return;
        }
        if (pendingLocalReply != null) {
            sendLocalReply();
        } else if (closeRequested) {
            finish();
        } else {
            if (continueRequest) {
                continueRequest = false;
                resume(request);
            }
            if (continueResponse && !ended) {
                continueResponse = false;
                resume(response);
            }
        }
    }

    /** Envoy sends a local reply through the filter's own response callbacks; then the stream is over. */
    private void sendLocalReply() {
        localReply = pendingLocalReply;
        pendingLocalReply = null;
        continueRequest = false;
        continueResponse = false;
        byte[] body = host.replyBody(localReply);
        response.headers = host.replyHeaders(localReply);
        response.trailers = null;
        response.buffered = new byte[0];
        response.forwarded.reset();
        response.endSeen = body.length == 0;
        headersCallback(response);
        if (!ended && body.length > 0) {
            response.buffered = body;
            response.endSeen = true;
            bodyCallback(response);
        }
        if (!ended) {
            forward(response);
        }
    }

    private void finish() {
        if (ended) {
            return;
        }
        ended = true;
        inLog = true;
        host.onEnd();
        host.forget();
    }

    /** After a local reply Envoy drops what the client still sends; driving a finished stream is a caller's bug. */
    private boolean ignored(Direction<H> direction) {
        if (localReply != null) {
            return true;
        }
        if (ended) {
            throw new IllegalStateException("stream " + contextId + " has ended");
        }
        return host.bypassed(this, direction.isRequest);
    }

    /**
     * The request buffer limit of this stream (the listener's, or what the filter set through Higress's
     * {@code set_decoder_buffer_limit} property). A filter that answers StopIterationAndBuffer with more request body
     * buffered than this gets Envoy's 413; StopIterationAndWatermark only pauses the client (no limit applies).
     */
    public void setRequestBufferLimit(long bytes) {
        requestBufferLimit = bytes;
    }

    public long requestBufferLimit() {
        return requestBufferLimit;
    }

    private boolean overBufferLimit(Direction<H> direction) {
        return direction.isRequest && direction.buffered.length > requestBufferLimit;
    }

    private void tooLarge() {
        pendingLocalReply = host.payloadTooLarge();
        sendLocalReply();
    }

    /** The host ends the stream with this reply without the filter (e.g. the VM failed closed). */
    public void fail(R reply) {
        localReply = reply;
        ended = true;
        host.forget();
    }

    /** The host lets this direction's headers pass the filter (e.g. the VM failed open). */
    public void passWithoutFilter(boolean requestSide) {
        direction(requestSide).headersForwarded = true;
    }

    private Direction<H> direction(boolean requestSide) {
        return requestSide ? request : response;
    }

    private static String name(Direction<?> direction) {
        return direction.isRequest ? "request" : "response";
    }

    private static byte[] concat(byte[] head, byte[] tail) {
        byte[] joined = Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, joined, head.length, tail.length);
        return joined;
    }

    // ---- reading back

    /** The live headers of one direction, or null before they were sent. */
    public H headers(boolean requestSide) {
        return direction(requestSide).headers;
    }

    /** The live trailers of one direction, or null. */
    public H trailers(boolean requestSide) {
        return direction(requestSide).trailers;
    }

    /** The body that went past the filter in one direction. */
    public byte[] forwardedBody(boolean requestSide) {
        return direction(requestSide).forwarded.toByteArray();
    }

    /** Whether the headers of one direction went on (to the router, or to the client). */
    public boolean headersForwarded(boolean requestSide) {
        return direction(requestSide).headersForwarded;
    }

    /** Whether the filter holds request headers or data (waiting for more body or for its own continue). */
    public boolean isRequestPaused() {
        return !ended && localReply == null && request.paused();
    }

    public boolean isResponsePaused() {
        return !ended && response.paused();
    }

    /** The local reply sent, or null. */
    public R localReply() {
        return localReply;
    }

    /** Whether a local reply waits for the current guest call to return. */
    public boolean localReplyPending() {
        return pendingLocalReply != null;
    }

    /** Whether the end callbacks ran. */
    public boolean isEnded() {
        return ended;
    }

    /** The host set with {@code proxy_set_upstream_override_host}, or null. */
    public String upstreamOverride() {
        return upstreamOverride;
    }

    /** Whether the override came after the request headers went to the router (Envoy then ignores it). */
    public boolean upstreamOverrideAfterRouting() {
        return overrideAfterRouting;
    }

    // ---- what the host calls do

    /** Headers are writable until they went on; trailers until the direction ended; nothing during the log. */
    public boolean writable(boolean requestSide, boolean trailersMap) {
        if (inLog) {
            return false;
        }
        Direction<H> direction = direction(requestSide);
        return trailersMap ? !direction.endForwarded : !direction.headersForwarded;
    }

    /** The buffered body the filter sees in one direction. */
    public byte[] body(boolean requestSide) {
        return direction(requestSide).buffered;
    }

    public void replaceBody(boolean requestSide, byte[] body) {
        direction(requestSide).buffered = body;
    }

    public void overrideUpstream(String address) {
        upstreamOverride = address;
        overrideAfterRouting = request.headersForwarded;
    }

    /** The first local reply the filter asks for wins; it is sent once the current guest call returns. */
    public void requestLocalReply(R reply) {
        if (localReply == null && pendingLocalReply == null) {
            pendingLocalReply = reply;
            host.defer();
        }
    }

    public void requestContinue(boolean requestSide) {
        if (requestSide) {
            continueRequest = true;
        } else {
            continueResponse = true;
        }
        host.defer();
    }

    public void requestClose() {
        closeRequested = true;
        host.defer();
    }
}
