package io.ailb.proxywasm.testkit;

import io.ailb.proxywasm.UpstreamHost;
import io.ailb.proxywasm.bindings.DataAction;
import io.ailb.proxywasm.bindings.HeaderAction;
import io.ailb.proxywasm.bindings.MapType;
import io.ailb.proxywasm.bindings.ProxyWasmExports;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap.SimpleEntry;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One HTTP stream through the guest, driven as Envoy's filter manager drives a filter: request headers, body chunks
 * and trailers go down, the response comes back, and the stream ends with {@code proxy_on_log}, {@code proxy_on_done}
 * and {@code proxy_on_delete} — when the response is complete, after a local reply, or on {@link #complete()} or
 * {@link #reset()}.
 *
 * <p>The {@code send*} methods return the guest's status ({@code HeaderAction}, {@code DataAction} codes). What the
 * guest asked for during a callback (continue, local reply, close) takes effect after the callback returns, and
 * answered callouts are delivered before the method returns (unless delivery is manual).
 *
 * <p>Envoy's rules kept here: a body chunk extends the buffered body while the guest buffers ({@code body_size} is
 * cumulative); after a {@code StopAllIteration} headers status Envoy buffers chunks without calling the guest and hands
 * them over in one callback on continue; on the response side {@code StopIteration} acts as {@code StopAllIteration};
 * a local reply passes the guest's response callbacks and ends the stream; header maps are read-only once they went
 * on, and all of them during {@code proxy_on_log}.
 */
public final class FakeStream {
    private final FakeHost host;
    private final int contextId;
    private final Map<String, byte[]> properties = new HashMap<>();
    private final Direction request = new Direction(true);
    private final Direction response = new Direction(false);
    private List<UpstreamHost> upstreamHosts;
    private String upstreamOverride;
    private boolean overrideAfterRouting;
    private LocalResponse localResponse;
    private LocalResponse pendingLocalResponse;
    private boolean continueRequest;
    private boolean continueResponse;
    private boolean closeRequested;
    private boolean inLog;
    private boolean ended;

    /** One direction as the guest sees it. */
    private static final class Direction {
        final boolean isRequest;
        List<Map.Entry<String, String>> headers;
        List<Map.Entry<String, String>> trailers;
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

    FakeStream(FakeHost host, int contextId) {
        this.host = host;
        this.contextId = contextId;
    }

    /** Header pairs from alternating names and values: {@code headers(":method", "GET", ":path", "/")}. */
    public static List<Map.Entry<String, String>> headers(String... namesAndValues) {
        return Pairs.of(namesAndValues);
    }

    // ---- set-up

    /** A property this stream's guest reads (else the host's); path segments separated by '.'. */
    public FakeStream withProperty(String path, String value) {
        properties.put(FakeHost.propertyKey(path), value.getBytes(StandardCharsets.UTF_8));
        return this;
    }

    /** Envoy's {@code route_name} attribute. */
    public FakeStream withRouteName(String routeName) {
        return withProperty("route_name", routeName);
    }

    /** Envoy's {@code cluster_name} attribute: the upstream cluster the route selected. */
    public FakeStream withClusterName(String clusterName) {
        return withProperty("cluster_name", clusterName);
    }

    /** The hosts {@code proxy_get_upstream_hosts} lists for this stream, instead of the host's. */
    public FakeStream withUpstreamHosts(List<UpstreamHost> hosts) {
        upstreamHosts = List.copyOf(hosts);
        return this;
    }

    // ---- driving

    public int sendRequestHeaders(List<Map.Entry<String, String>> headers, boolean endOfStream) {
        return sendHeaders(request, headers, endOfStream);
    }

    public int sendRequestBody(String chunk, boolean endOfStream) {
        return sendRequestBody(chunk.getBytes(StandardCharsets.UTF_8), endOfStream);
    }

    public int sendRequestBody(byte[] chunk, boolean endOfStream) {
        return sendBody(request, chunk, endOfStream);
    }

    public int sendRequestTrailers(List<Map.Entry<String, String>> trailers) {
        return sendTrailers(request, trailers);
    }

    public int sendResponseHeaders(List<Map.Entry<String, String>> headers, boolean endOfStream) {
        return sendHeaders(response, headers, endOfStream);
    }

    public int sendResponseBody(String chunk, boolean endOfStream) {
        return sendResponseBody(chunk.getBytes(StandardCharsets.UTF_8), endOfStream);
    }

    public int sendResponseBody(byte[] chunk, boolean endOfStream) {
        return sendBody(response, chunk, endOfStream);
    }

    public int sendResponseTrailers(List<Map.Entry<String, String>> trailers) {
        return sendTrailers(response, trailers);
    }

    /** The stream finished: the end callbacks run now (log, done, delete). */
    public void complete() {
        finish();
        host.settle();
    }

    /**
     * The client or the upstream reset the stream: the same end callbacks, at any point, also while a callout is due
     * (its answer then reaches the root context with no stream left).
     */
    public void reset() {
        finish();
        host.settle();
    }

    // ---- reading back

    public int contextId() {
        return contextId;
    }

    /** The host set with {@code proxy_set_upstream_override_host}, if any. */
    public Optional<String> upstreamOverride() {
        return Optional.ofNullable(upstreamOverride);
    }

    /** Whether the override came after the request headers went to the router (Envoy then ignores it). */
    public boolean upstreamOverrideAfterRouting() {
        return overrideAfterRouting;
    }

    public Optional<LocalResponse> localResponse() {
        return Optional.ofNullable(localResponse);
    }

    /** The request headers with the guest's changes; empty before they were sent. */
    public List<Map.Entry<String, String>> requestHeaders() {
        return request.headers == null ? List.of() : List.copyOf(request.headers);
    }

    /** The first request header with this name, as the guest left it. */
    public Optional<String> requestHeader(String name) {
        return request.headers == null ? Optional.empty() : Pairs.first(request.headers, name);
    }

    /** The response headers as the guest left them (for a local reply: the reply's). */
    public List<Map.Entry<String, String>> responseHeaders() {
        return response.headers == null ? List.of() : List.copyOf(response.headers);
    }

    /** The request body that went past the guest to the upstream. */
    public byte[] forwardedRequestBody() {
        return request.forwarded.toByteArray();
    }

    /** The response body that went past the guest to the client. */
    public byte[] forwardedResponseBody() {
        return response.forwarded.toByteArray();
    }

    /** Whether the request headers went on to the router. */
    public boolean requestHeadersForwarded() {
        return request.headersForwarded;
    }

    /** Whether the guest holds request headers or data (waiting for more body or for its own continue). */
    public boolean isRequestPaused() {
        return !ended && localResponse == null && request.paused();
    }

    /** Whether the end callbacks ran. */
    public boolean isEnded() {
        return ended;
    }

    /** A property as the guest would read it now: its own, else the host's. */
    public Optional<String> property(String path) {
        byte[] value = findProperty(FakeHost.propertyKey(path));
        return value == null ? Optional.empty() : Optional.of(new String(value, StandardCharsets.UTF_8));
    }

    // ---- the filter manager

    private int sendHeaders(Direction direction, List<Map.Entry<String, String>> headers, boolean endOfStream) {
        if (ignored()) {
            return HeaderAction.CONTINUE;
        }
        if (direction.headers != null) {
            throw new IllegalStateException(name(direction) + " headers were already sent on stream " + contextId);
        }
        direction.headers = Pairs.copy(headers);
        direction.endSeen = endOfStream;
        int action = headersCallback(direction);
        host.settle();
        return action;
    }

    private int headersCallback(Direction direction) {
        int count = direction.headers.size();
        int endOfStream = direction.endSeen ? 1 : 0;
        int action = direction.isRequest
                ? host.invoke(contextId, () -> ProxyWasmExports.proxyOnRequestHeaders(contextId, count, endOfStream))
                : host.invoke(contextId, () -> ProxyWasmExports.proxyOnResponseHeaders(contextId, count, endOfStream));
        if (pendingLocalResponse != null || ended) {
            return action;
        }
        if (action == HeaderAction.CONTINUE || action == HeaderAction.CONTINUE_AND_END_STREAM) {
            forward(direction);
        } else {
            direction.headersHeld = true;
            direction.stopAll = action != HeaderAction.STOP_ITERATION || !direction.isRequest;
        }
        return action;
    }

    private int sendBody(Direction direction, byte[] chunk, boolean endOfStream) {
        if (ignored()) {
            return DataAction.CONTINUE;
        }
        if (direction.headers == null) {
            throw new IllegalStateException("send the " + name(direction) + " headers before its body");
        }
        if (direction.endSeen) {
            throw new IllegalStateException("the " + name(direction) + " of stream " + contextId + " has ended");
        }
        direction.buffered = concat(direction.buffered, chunk);
        direction.endSeen = endOfStream;
        if (direction.stopAll) {
            return DataAction.STOP_ITERATION_AND_BUFFER;
        }
        int action = bodyCallback(direction);
        host.settle();
        return action;
    }

    private int bodyCallback(Direction direction) {
        int size = direction.buffered.length;
        int endOfStream = direction.endSeen ? 1 : 0;
        int action = direction.isRequest
                ? host.invoke(contextId, () -> ProxyWasmExports.proxyOnRequestBody(contextId, size, endOfStream))
                : host.invoke(contextId, () -> ProxyWasmExports.proxyOnResponseBody(contextId, size, endOfStream));
        if (pendingLocalResponse != null || ended) {
            return action;
        }
        if (action == DataAction.CONTINUE) {
            forward(direction);
        } else if (action == DataAction.STOP_ITERATION_NO_BUFFER) {
            direction.buffered = new byte[0];
        }
        return action;
    }

    private int sendTrailers(Direction direction, List<Map.Entry<String, String>> trailers) {
        if (ignored()) {
            return HeaderAction.CONTINUE;
        }
        direction.trailers = Pairs.copy(trailers);
        direction.endSeen = true;
        if (direction.stopAll) {
            return HeaderAction.STOP_ITERATION;
        }
        int count = trailers.size();
        int action = direction.isRequest
                ? host.invoke(contextId, () -> ProxyWasmExports.proxyOnRequestTrailers(contextId, count))
                : host.invoke(contextId, () -> ProxyWasmExports.proxyOnResponseTrailers(contextId, count));
        if (action == HeaderAction.CONTINUE && pendingLocalResponse == null && !ended) {
            forward(direction);
        }
        host.settle();
        return action;
    }

    /** Lets everything held in this direction go on; a complete response ends the stream. */
    private void forward(Direction direction) {
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

    /** {@code proxy_continue_stream}: after StopAll the buffered body reaches the guest in one callback. */
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

    /** Runs once the guest call that asked for them has returned: local reply, close, continue. */
    void applyDeferred() {
        if (ended) {
            return;
        }
        if (pendingLocalResponse != null) {
            sendLocalResponse();
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

    /** Envoy sends a local reply through the guest's own response callbacks; then the stream is over. */
    private void sendLocalResponse() {
        localResponse = pendingLocalResponse;
        pendingLocalResponse = null;
        continueRequest = false;
        continueResponse = false;
        List<Map.Entry<String, String>> headers = Pairs.of(":status", Integer.toString(localResponse.status()));
        headers.addAll(Pairs.copy(localResponse.headers()));
        byte[] body = localResponse.body();
        if (body.length > 0) {
            Pairs.replace(headers, "content-length", Integer.toString(body.length));
            if (Pairs.first(headers, "content-type").isEmpty()) {
                headers.add(new SimpleEntry<>("content-type", "text/plain"));
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
        inLog = true;
        host.invoke(contextId, () -> {
            ProxyWasmExports.proxyOnLog(contextId);
            return 0;
        });
        host.invoke(contextId, () -> ProxyWasmExports.proxyOnDone(contextId));
        host.invoke(contextId, () -> {
            ProxyWasmExports.proxyOnDelete(contextId);
            return 0;
        });
        host.forget(this);
    }

    /** After a local reply Envoy drops what the client still sends; driving a finished stream is a test bug. */
    private boolean ignored() {
        if (localResponse != null) {
            return true;
        }
        if (ended) {
            throw new IllegalStateException("stream " + contextId + " has ended");
        }
        return false;
    }

    private static String name(Direction direction) {
        return direction.isRequest ? "request" : "response";
    }

    private static byte[] concat(byte[] head, byte[] tail) {
        byte[] joined = Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, joined, head.length, tail.length);
        return joined;
    }

    // ---- what the host calls see

    List<Map.Entry<String, String>> map(int mapType) {
        switch (mapType) {
            case MapType.HTTP_REQUEST_HEADERS:
                return request.headers;
            case MapType.HTTP_REQUEST_TRAILERS:
                return request.trailers;
            case MapType.HTTP_RESPONSE_HEADERS:
                return response.headers;
            case MapType.HTTP_RESPONSE_TRAILERS:
                return response.trailers;
            default:
                return null;
        }
    }

    /** Maps are read-only once they went on, and during {@code proxy_on_log}. */
    boolean writable(int mapType) {
        if (inLog) {
            return false;
        }
        switch (mapType) {
            case MapType.HTTP_REQUEST_HEADERS:
                return !request.headersForwarded;
            case MapType.HTTP_REQUEST_TRAILERS:
                return !request.endForwarded;
            case MapType.HTTP_RESPONSE_HEADERS:
                return !response.headersForwarded;
            case MapType.HTTP_RESPONSE_TRAILERS:
                return !response.endForwarded;
            default:
                return false;
        }
    }

    byte[] body(boolean requestBody) {
        return (requestBody ? request : response).buffered;
    }

    void replaceBody(boolean requestBody, byte[] body) {
        (requestBody ? request : response).buffered = body;
    }

    byte[] findProperty(String key) {
        byte[] value = properties.get(key);
        return value != null ? value : host.hostProperty(key);
    }

    void setProperty(String key, byte[] value) {
        properties.put(key, value);
    }

    /** This stream's hosts, or null to use the host's. */
    List<UpstreamHost> upstreamHosts() {
        return upstreamHosts;
    }

    void overrideUpstream(String address) {
        upstreamOverride = address;
        overrideAfterRouting = request.headersForwarded;
    }

    void requestLocalResponse(LocalResponse reply) {
        if (localResponse == null && pendingLocalResponse == null) {
            pendingLocalResponse = reply;
            host.defer(this);
        }
    }

    void requestContinue(boolean requestDirection) {
        if (requestDirection) {
            continueRequest = true;
        } else {
            continueResponse = true;
        }
        host.defer(this);
    }

    void requestClose() {
        closeRequested = true;
        host.defer(this);
    }
}
