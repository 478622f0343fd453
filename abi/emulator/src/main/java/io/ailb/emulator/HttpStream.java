package io.ailb.emulator;

import io.ailb.emulator.bindings.DataAction;
import io.ailb.emulator.bindings.GuestExports;
import io.ailb.emulator.bindings.HeaderAction;
import io.ailb.emulator.bindings.MapType;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One HTTP stream through the filter, driven like Envoy's filter manager drives it: request headers, body chunks and
 * trailers go down; response headers, body and trailers come back; the stream ends with {@code proxy_on_log},
 * {@code proxy_on_done} and {@code proxy_on_delete} when the response completes, after a local reply, or on
 * {@link #reset()}. The {@code send*} methods return the filter's status after Envoy's conversion
 * ({@link HeaderAction}, {@link DataAction}); deferred actions (continue, local reply, close) and, with
 * {@link Delivery#AUTOMATIC}, waiting replies are applied before they return.
 */
public final class HttpStream {
    private final PluginVm vm;
    private final int contextId;
    private final Map<String, byte[]> properties = new HashMap<>();
    private final Direction request = new Direction(true);
    private final Direction response = new Direction(false);
    private List<ClusterHost> upstreamHosts;
    private String upstreamOverride;
    private boolean overrideAfterRouting;
    private LocalReply localReply;
    private LocalReply pendingLocalReply;
    private boolean continueRequest;
    private boolean continueResponse;
    private boolean closeRequested;
    private boolean inLog;
    private boolean ended;

    /** One direction of the stream as this filter sees it. */
    private static final class Direction {
        final boolean request;
        HeaderMap headers;
        HeaderMap trailers;
        byte[] buffered = new byte[0];
        final ByteArrayOutputStream forwarded = new ByteArrayOutputStream();
        boolean headersHeld;
        boolean headersForwarded;
        boolean stopAll;
        boolean endSeen;
        boolean endForwarded;

        Direction(boolean request) {
            this.request = request;
        }

        boolean paused() {
            return headersHeld || stopAll || buffered.length > 0 || (endSeen && !endForwarded && headers != null);
        }
    }

    HttpStream(PluginVm vm, int contextId) {
        this.vm = vm;
        this.contextId = contextId;
    }

    // ---- set-up ----------------------------------------------------------------------------------------------------

    /** A property this stream's filter reads; path segments separated by '.'. */
    public HttpStream withProperty(String path, String value) {
        properties.put(PropertyPath.key(path), value.getBytes(StandardCharsets.UTF_8));
        return this;
    }

    /** Property {@code route_name}. */
    public HttpStream withRouteName(String routeName) {
        return withProperty("route_name", routeName);
    }

    /** Property {@code cluster_name}; also selects the gateway's upstream hosts for this stream. */
    public HttpStream withClusterName(String clusterName) {
        return withProperty("cluster_name", clusterName);
    }

    /** Envoy's request id attribute ({@code request.id}). */
    public HttpStream withRequestId(String requestId) {
        return withProperty("request.id", requestId);
    }

    /** The hosts {@code proxy_get_upstream_hosts} lists for this stream, instead of its cluster's. */
    public HttpStream withUpstreamHosts(List<ClusterHost> hosts) {
        this.upstreamHosts = List.copyOf(hosts);
        return this;
    }

    // ---- driving ---------------------------------------------------------------------------------------------------

    public int sendRequestHeaders(HeaderMap headers, boolean endOfStream) {
        return sendHeaders(request, headers, endOfStream);
    }

    public int sendRequestBody(String chunk, boolean endOfStream) {
        return sendRequestBody(chunk.getBytes(StandardCharsets.UTF_8), endOfStream);
    }

    /**
     * One body chunk. While the filter buffers ({@code StopIterationAndBuffer}) the next call sees the whole buffered
     * body ({@code body_size} is cumulative). While headers stopped with {@code StopAllIteration*}, Envoy buffers the
     * chunk without calling the filter and this returns {@code STOP_ITERATION_AND_BUFFER}.
     */
    public int sendRequestBody(byte[] chunk, boolean endOfStream) {
        return sendBody(request, chunk, endOfStream);
    }

    public int sendRequestTrailers(HeaderMap trailers) {
        return sendTrailers(request, trailers);
    }

    public int sendResponseHeaders(HeaderMap headers, boolean endOfStream) {
        return sendHeaders(response, headers, endOfStream);
    }

    public int sendResponseBody(String chunk, boolean endOfStream) {
        return sendResponseBody(chunk.getBytes(StandardCharsets.UTF_8), endOfStream);
    }

    public int sendResponseBody(byte[] chunk, boolean endOfStream) {
        return sendBody(response, chunk, endOfStream);
    }

    public int sendResponseTrailers(HeaderMap trailers) {
        return sendTrailers(response, trailers);
    }

    /** Ends the stream now as a finished one: {@code proxy_on_log}, {@code proxy_on_done}, {@code proxy_on_delete}. */
    public void complete() {
        finish();
        vm.deliveries().settle();
    }

    /**
     * The downstream or upstream reset the stream: the same end callbacks, at any point, even while a Redis reply or
     * HTTP-call response is still due (it then reaches the root context with no stream left).
     */
    public void reset() {
        finish();
        vm.deliveries().settle();
    }

    // ---- reading back ----------------------------------------------------------------------------------------------

    public int contextId() {
        return contextId;
    }

    public PluginVm vm() {
        return vm;
    }

    /** The local reply the filter sent, if any. */
    public Optional<LocalReply> localReply() {
        return Optional.ofNullable(localReply);
    }

    /** The live request headers (with the filter's edits); empty before they were sent. */
    public HeaderMap requestHeaders() {
        return request.headers == null ? HeaderMap.empty() : request.headers;
    }

    public HeaderMap requestTrailers() {
        return request.trailers == null ? HeaderMap.empty() : request.trailers;
    }

    /** The response headers as the filter left them (for a local reply: the reply's headers). */
    public HeaderMap responseHeaders() {
        return response.headers == null ? HeaderMap.empty() : response.headers;
    }

    public HeaderMap responseTrailers() {
        return response.trailers == null ? HeaderMap.empty() : response.trailers;
    }

    /** The request body that went past the filter to the upstream. */
    public byte[] forwardedRequestBody() {
        return request.forwarded.toByteArray();
    }

    /** The response body that went past the filter to the downstream. */
    public byte[] forwardedResponseBody() {
        return response.forwarded.toByteArray();
    }

    /** Whether the request headers went on to the router. */
    public boolean requestHeadersForwarded() {
        return request.headersForwarded;
    }

    /** Whether the filter holds request headers or data (waiting for more body or a {@code continue}). */
    public boolean isRequestPaused() {
        return !ended && localReply == null && request.paused();
    }

    public boolean isResponsePaused() {
        return !ended && response.paused();
    }

    /** The upstream host the filter asked for with {@code proxy_set_upstream_override_host}. */
    public Optional<String> upstreamOverride() {
        return Optional.ofNullable(upstreamOverride);
    }

    /** Whether the override came after the request headers reached the router (then Envoy ignores it). */
    public boolean upstreamOverrideAfterRouting() {
        return overrideAfterRouting;
    }

    /** A property as the filter would read it (its own, else the VM's, else the gateway's). */
    public Optional<String> property(String path) {
        byte[] value = findProperty(PropertyPath.key(path));
        return value == null ? Optional.empty() : Optional.of(new String(value, StandardCharsets.UTF_8));
    }

    /** Whether the end callbacks ran (response complete, local reply, reset, or {@link #complete()}). */
    public boolean isEnded() {
        return ended;
    }

    // ---- the filter manager ----------------------------------------------------------------------------------------

    private int sendHeaders(Direction direction, HeaderMap headers, boolean endOfStream) {
        if (ignored(direction)) {
            return HeaderAction.CONTINUE;
        }
        if (direction.headers != null) {
            throw new IllegalStateException(name(direction) + " headers were already sent on stream " + contextId);
        }
        direction.headers = headers;
        direction.endSeen = endOfStream;
        int action = headersCallback(direction);
        vm.deliveries().settle();
        return action;
    }

    private int headersCallback(Direction direction) {
        GuestRuntime runtime = vm.runtime();
        GuestExports guest = runtime.exports();
        int size = direction.headers.size();
        int eos = direction.endSeen ? 1 : 0;
        int raw = direction.request
                ? runtime.invoke(
                        "proxy_on_request_headers", contextId, () -> guest.proxyOnRequestHeaders(contextId, size, eos))
                : runtime.invoke(
                        "proxy_on_response_headers",
                        contextId,
                        () -> guest.proxyOnResponseHeaders(contextId, size, eos));
        int action = convertHeaderStatus(raw, direction.request);
        if (pendingLocalReply != null || ended) {
            return action;
        }
        switch (action) {
            case HeaderAction.CONTINUE -> forward(direction);
            case HeaderAction.STOP_ITERATION -> direction.headersHeld = true;
            default -> {
                direction.headersHeld = true;
                direction.stopAll = true;
            }
        }
        return action;
    }

    /** Envoy's conversion of the filter's header status (see the Higress fork and cpp-host {@code context.cc}). */
    private int convertHeaderStatus(int raw, boolean requestHeaders) {
        if (pendingLocalReply != null) {
            return HeaderAction.STOP_ALL_ITERATION_AND_WATERMARK;
        }
        int action = raw < 0 || raw > HeaderAction.STOP_ALL_ITERATION_AND_WATERMARK
                ? HeaderAction.STOP_ALL_ITERATION_AND_WATERMARK
                : raw;
        if (action == HeaderAction.STOP_ITERATION
                && !(requestHeaders && vm.gateway().plugin().keepsRequestHeaderStopIteration())) {
            return HeaderAction.STOP_ALL_ITERATION_AND_WATERMARK;
        }
        return action == HeaderAction.CONTINUE_AND_END_STREAM ? HeaderAction.CONTINUE : action;
    }

    private int sendBody(Direction direction, byte[] chunk, boolean endOfStream) {
        if (ignored(direction)) {
            return DataAction.CONTINUE;
        }
        if (direction.headers == null) {
            throw new IllegalStateException("send the " + name(direction) + " headers before its body");
        }
        direction.buffered = concat(direction.buffered, chunk);
        direction.endSeen |= endOfStream;
        if (direction.stopAll) {
            return DataAction.STOP_ITERATION_AND_BUFFER;
        }
        int action = bodyCallback(direction);
        vm.deliveries().settle();
        return action;
    }

    private int bodyCallback(Direction direction) {
        GuestRuntime runtime = vm.runtime();
        GuestExports guest = runtime.exports();
        int size = direction.buffered.length;
        int eos = direction.endSeen ? 1 : 0;
        int raw = direction.request
                ? runtime.invoke(
                        "proxy_on_request_body", contextId, () -> guest.proxyOnRequestBody(contextId, size, eos))
                : runtime.invoke(
                        "proxy_on_response_body", contextId, () -> guest.proxyOnResponseBody(contextId, size, eos));
        if (pendingLocalReply != null) {
            return DataAction.STOP_ITERATION_NO_BUFFER;
        }
        int action = raw < 0 || raw > DataAction.STOP_ITERATION_NO_BUFFER ? DataAction.STOP_ITERATION_NO_BUFFER : raw;
        if (ended) {
            return action;
        }
        if (action == DataAction.CONTINUE) {
            forward(direction);
        } else if (action == DataAction.STOP_ITERATION_NO_BUFFER) {
            direction.buffered = new byte[0];
        }
        return action;
    }

    private int sendTrailers(Direction direction, HeaderMap trailers) {
        if (ignored(direction)) {
            return HeaderAction.CONTINUE;
        }
        direction.trailers = trailers;
        direction.endSeen = true;
        if (direction.stopAll) {
            return HeaderAction.STOP_ITERATION;
        }
        GuestRuntime runtime = vm.runtime();
        GuestExports guest = runtime.exports();
        int size = trailers.size();
        int raw = direction.request
                ? runtime.invoke(
                        "proxy_on_request_trailers", contextId, () -> guest.proxyOnRequestTrailers(contextId, size))
                : runtime.invoke(
                        "proxy_on_response_trailers", contextId, () -> guest.proxyOnResponseTrailers(contextId, size));
        int action = raw == HeaderAction.CONTINUE ? HeaderAction.CONTINUE : HeaderAction.STOP_ITERATION;
        if (action == HeaderAction.CONTINUE && pendingLocalReply == null && !ended) {
            forward(direction);
        }
        vm.deliveries().settle();
        return action;
    }

    /** Lets everything the filter held in this direction go on; a complete response ends the stream. */
    private void forward(Direction direction) {
        direction.headersHeld = false;
        direction.stopAll = false;
        direction.headersForwarded = true;
        direction.forwarded.writeBytes(direction.buffered);
        direction.buffered = new byte[0];
        if (direction.endSeen) {
            direction.endForwarded = true;
            if (!direction.request) {
                finish();
            }
        }
    }

    /** {@code proxy_continue_stream}: after StopAll the buffered body reaches the filter in one callback. */
    private void resume(Direction direction) {
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

    /** Runs after the guest call that asked for them returned: local reply, close, continue. */
    void applyDeferred() {
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

    /** Envoy sends the local reply through the filter's own response callbacks, then the stream is done. */
    private void sendLocalReply() {
        localReply = pendingLocalReply;
        pendingLocalReply = null;
        continueRequest = false;
        continueResponse = false;
        HeaderMap headers = HeaderMap.of(":status", Integer.toString(localReply.status()));
        for (Map.Entry<String, String> header : localReply.headers().pairs()) {
            headers.add(header.getKey(), header.getValue());
        }
        byte[] body = localReply.body();
        if (body.length > 0) {
            headers.replace("content-length", Integer.toString(body.length));
            if (headers.get("content-type").isEmpty()) {
                headers.add("content-type", "text/plain");
            }
        }
        response.headers = headers;
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
        if (vm.isAlive()) {
            GuestRuntime runtime = vm.runtime();
            GuestExports guest = runtime.exports();
            inLog = true;
            runtime.invoke("proxy_on_log", contextId, () -> {
                guest.proxyOnLog(contextId);
                return 0;
            });
            runtime.invoke("proxy_on_done", contextId, () -> guest.proxyOnDone(contextId));
            runtime.invoke("proxy_on_delete", contextId, () -> {
                guest.proxyOnDelete(contextId);
                return 0;
            });
        }
        vm.forget(this);
    }

    /** Whether a send is a no-op: after a local reply Envoy drops the rest; a dead VM fails or passes the stream. */
    private boolean ignored(Direction direction) {
        if (ended && localReply == null) {
            throw new IllegalStateException("stream " + contextId + " has ended");
        }
        if (localReply != null) {
            return true;
        }
        if (!vm.isAlive()) {
            if (vm.gateway().options().failOpen()) {
                direction.headersForwarded = true;
            } else {
                localReply = new LocalReply(503, "wasm_fail_stream", new byte[0], HeaderMap.empty(), -1);
                ended = true;
                vm.forget(this);
            }
            return true;
        }
        return false;
    }

    private static String name(Direction direction) {
        return direction.request ? "request" : "response";
    }

    private static byte[] concat(byte[] head, byte[] tail) {
        if (head.length == 0) {
            return tail.clone();
        }
        byte[] joined = Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, joined, head.length, tail.length);
        return joined;
    }

    // ---- what the host calls see -----------------------------------------------------------------------------------

    HeaderMap map(int mapType) {
        return switch (mapType) {
            case MapType.HTTP_REQUEST_HEADERS -> request.headers;
            case MapType.HTTP_REQUEST_TRAILERS -> request.trailers;
            case MapType.HTTP_RESPONSE_HEADERS -> response.headers;
            case MapType.HTTP_RESPONSE_TRAILERS -> response.trailers;
            default -> null;
        };
    }

    /** Maps are read-only once they went on, and during {@code proxy_on_log}. */
    boolean writable(int mapType) {
        if (inLog) {
            return false;
        }
        return switch (mapType) {
            case MapType.HTTP_REQUEST_HEADERS -> !request.headersForwarded;
            case MapType.HTTP_REQUEST_TRAILERS -> !request.endForwarded;
            case MapType.HTTP_RESPONSE_HEADERS -> !response.headersForwarded;
            case MapType.HTTP_RESPONSE_TRAILERS -> !response.endForwarded;
            default -> false;
        };
    }

    byte[] body(boolean requestBody) {
        return (requestBody ? request : response).buffered;
    }

    void replaceBody(boolean requestBody, byte[] body) {
        (requestBody ? request : response).buffered = body;
    }

    byte[] findProperty(String key) {
        byte[] value = properties.get(key);
        if (value == null) {
            value = vm.contexts().rootProperties().get(key);
        }
        return value != null ? value : vm.gateway().defaultProperty(key);
    }

    void setProperty(String key, byte[] value) {
        properties.put(key, value);
    }

    List<ClusterHost> upstreamHosts() {
        if (upstreamHosts != null) {
            return upstreamHosts;
        }
        byte[] cluster = findProperty("cluster_name");
        return cluster == null ? List.of() : vm.gateway().upstreamHosts(new String(cluster, StandardCharsets.UTF_8));
    }

    void overrideUpstream(String address) {
        upstreamOverride = address;
        overrideAfterRouting = request.headersForwarded;
    }

    void requestLocalReply(LocalReply reply) {
        if (localReply == null && pendingLocalReply == null) {
            pendingLocalReply = reply;
            vm.deliveries().defer(this);
        }
    }

    void requestContinue(boolean requestDirection) {
        if (requestDirection) {
            continueRequest = true;
        } else {
            continueResponse = true;
        }
        vm.deliveries().defer(this);
    }

    void requestClose() {
        closeRequested = true;
        vm.deliveries().defer(this);
    }
}
