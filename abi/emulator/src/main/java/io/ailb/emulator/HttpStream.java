package io.ailb.emulator;

import io.ailb.emulator.bindings.DataAction;
import io.ailb.emulator.bindings.GuestExports;
import io.ailb.emulator.bindings.HeaderAction;
import io.ailb.emulator.bindings.MapType;
import io.ailb.hostkit.FilterStream;
import java.nio.charset.StandardCharsets;
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
 * {@link Delivery#AUTOMATIC}, waiting replies are applied before they return. The rules themselves are
 * {@link FilterStream}'s, shared with the JVM fake host.
 */
public final class HttpStream {
    /** Higress's property for a stream's request buffer limit (decimal bytes). */
    static final String DECODER_BUFFER_LIMIT_PROPERTY = "set_decoder_buffer_limit";

    private final PluginVm vm;
    private final int contextId;
    private final Map<String, byte[]> properties = new HashMap<>();
    private final FilterStream<HeaderMap, LocalReply> rules;
    private List<ClusterHost> upstreamHosts;

    HttpStream(PluginVm vm, int contextId) {
        this.vm = vm;
        this.contextId = contextId;
        this.rules = new FilterStream<>(new GuestCalls(), contextId);
        this.rules.setRequestBufferLimit(vm.gateway().options().requestBufferLimit());
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
        return rules.sendHeaders(true, headers, endOfStream);
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
        return rules.sendBody(true, chunk, endOfStream, false);
    }

    public int sendRequestTrailers(HeaderMap trailers) {
        return rules.sendTrailers(true, trailers);
    }

    public int sendResponseHeaders(HeaderMap headers, boolean endOfStream) {
        return rules.sendHeaders(false, headers, endOfStream);
    }

    public int sendResponseBody(String chunk, boolean endOfStream) {
        return sendResponseBody(chunk.getBytes(StandardCharsets.UTF_8), endOfStream);
    }

    public int sendResponseBody(byte[] chunk, boolean endOfStream) {
        return rules.sendBody(false, chunk, endOfStream, false);
    }

    public int sendResponseTrailers(HeaderMap trailers) {
        return rules.sendTrailers(false, trailers);
    }

    /** Ends the stream now as a finished one: {@code proxy_on_log}, {@code proxy_on_done}, {@code proxy_on_delete}. */
    public void complete() {
        rules.end();
    }

    /**
     * The downstream or upstream reset the stream: the same end callbacks, at any point, even while a Redis reply or
     * HTTP-call response is still due (it then reaches the root context with no stream left).
     */
    public void reset() {
        rules.end();
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
        return Optional.ofNullable(rules.localReply());
    }

    /** The live request headers (with the filter's edits); empty before they were sent. */
    public HeaderMap requestHeaders() {
        return orEmpty(rules.headers(true));
    }

    public HeaderMap requestTrailers() {
        return orEmpty(rules.trailers(true));
    }

    /** The response headers as the filter left them (for a local reply: the reply's headers). */
    public HeaderMap responseHeaders() {
        return orEmpty(rules.headers(false));
    }

    public HeaderMap responseTrailers() {
        return orEmpty(rules.trailers(false));
    }

    /** The request body that went past the filter to the upstream. */
    public byte[] forwardedRequestBody() {
        return rules.forwardedBody(true);
    }

    /** The response body that went past the filter to the downstream. */
    public byte[] forwardedResponseBody() {
        return rules.forwardedBody(false);
    }

    /** Whether the request headers went on to the router. */
    public boolean requestHeadersForwarded() {
        return rules.headersForwarded(true);
    }

    /** Whether the filter holds request headers or data (waiting for more body or a {@code continue}). */
    public boolean isRequestPaused() {
        return rules.isRequestPaused();
    }

    public boolean isResponsePaused() {
        return rules.isResponsePaused();
    }

    /** The upstream host the filter asked for with {@code proxy_set_upstream_override_host}. */
    public Optional<String> upstreamOverride() {
        return Optional.ofNullable(rules.upstreamOverride());
    }

    /** Whether the override came after the request headers reached the router (then Envoy ignores it). */
    public boolean upstreamOverrideAfterRouting() {
        return rules.upstreamOverrideAfterRouting();
    }

    /** A property as the filter would read it (its own, else the VM's, else the gateway's). */
    public Optional<String> property(String path) {
        byte[] value = findProperty(PropertyPath.key(path));
        return value == null ? Optional.empty() : Optional.of(new String(value, StandardCharsets.UTF_8));
    }

    /** Whether the end callbacks ran (response complete, local reply, reset, or {@link #complete()}). */
    public boolean isEnded() {
        return rules.isEnded();
    }

    private static HeaderMap orEmpty(HeaderMap headers) {
        return headers == null ? HeaderMap.empty() : headers;
    }

    /** How the filter manager calls the guest in the VM, with Envoy's conversion of the statuses it returns. */
    private final class GuestCalls implements FilterStream.Host<HeaderMap, LocalReply> {
        @Override
        public int onHeaders(boolean request, int count, boolean endOfStream) {
            GuestRuntime runtime = vm.runtime();
            GuestExports guest = runtime.exports();
            int eos = endOfStream ? 1 : 0;
            int raw = request
                    ? runtime.invoke(
                            "proxy_on_request_headers",
                            contextId,
                            () -> guest.proxyOnRequestHeaders(contextId, count, eos))
                    : runtime.invoke(
                            "proxy_on_response_headers",
                            contextId,
                            () -> guest.proxyOnResponseHeaders(contextId, count, eos));
            return convertHeaderStatus(raw, request);
        }

        /** Envoy's conversion of the filter's header status (see the Higress fork and cpp-host {@code context.cc}). */
        private int convertHeaderStatus(int raw, boolean requestHeaders) {
            if (rules.localReplyPending()) {
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

        @Override
        public int onBody(boolean request, int size, boolean endOfStream) {
            GuestRuntime runtime = vm.runtime();
            GuestExports guest = runtime.exports();
            int eos = endOfStream ? 1 : 0;
            int raw = request
                    ? runtime.invoke(
                            "proxy_on_request_body", contextId, () -> guest.proxyOnRequestBody(contextId, size, eos))
                    : runtime.invoke(
                            "proxy_on_response_body", contextId, () -> guest.proxyOnResponseBody(contextId, size, eos));
            if (rules.localReplyPending()) {
                return DataAction.STOP_ITERATION_NO_BUFFER;
            }
            return raw < 0 || raw > DataAction.STOP_ITERATION_NO_BUFFER ? DataAction.STOP_ITERATION_NO_BUFFER : raw;
        }

        @Override
        public int onTrailers(boolean request, int count) {
            GuestRuntime runtime = vm.runtime();
            GuestExports guest = runtime.exports();
            int raw = request
                    ? runtime.invoke(
                            "proxy_on_request_trailers",
                            contextId,
                            () -> guest.proxyOnRequestTrailers(contextId, count))
                    : runtime.invoke(
                            "proxy_on_response_trailers",
                            contextId,
                            () -> guest.proxyOnResponseTrailers(contextId, count));
            return raw == HeaderAction.CONTINUE ? HeaderAction.CONTINUE : HeaderAction.STOP_ITERATION;
        }

        @Override
        public void onEnd() {
            if (!vm.isAlive()) {
                return;
            }
            GuestRuntime runtime = vm.runtime();
            GuestExports guest = runtime.exports();
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

        @Override
        public void forget() {
            vm.forget(HttpStream.this);
        }

        @Override
        public void defer() {
            vm.deliveries().defer(HttpStream.this);
        }

        @Override
        public void settle() {
            vm.deliveries().settle();
        }

        @Override
        public int count(HeaderMap headers) {
            return headers.size();
        }

        @Override
        public HeaderMap replyHeaders(LocalReply reply) {
            HeaderMap headers = HeaderMap.of(":status", Integer.toString(reply.status()));
            for (Map.Entry<String, String> header : reply.headers().pairs()) {
                headers.add(header.getKey(), header.getValue());
            }
            int bodyLength = reply.body().length;
            if (bodyLength > 0) {
                headers.replace("content-length", Integer.toString(bodyLength));
                if (headers.get("content-type").isEmpty()) {
                    headers.add("content-type", "text/plain");
                }
            }
            return headers;
        }

        @Override
        public byte[] replyBody(LocalReply reply) {
            return reply.body();
        }

        @Override
        public LocalReply payloadTooLarge() {
            return new LocalReply(
                    413,
                    "request_payload_too_large",
                    "Payload Too Large".getBytes(StandardCharsets.UTF_8),
                    HeaderMap.empty(),
                    -1);
        }

        /** A dead VM passes the stream (fail open) or ends it with Envoy's 503 (fail closed). */
        @Override
        public boolean bypassed(FilterStream<HeaderMap, LocalReply> stream, boolean request) {
            if (vm.isAlive()) {
                return false;
            }
            if (vm.gateway().options().failOpen()) {
                stream.passWithoutFilter(request);
            } else {
                stream.fail(new LocalReply(503, "wasm_fail_stream", new byte[0], HeaderMap.empty(), -1));
            }
            return true;
        }
    }

    // ---- what the host calls see -----------------------------------------------------------------------------------

    HeaderMap map(int mapType) {
        return switch (mapType) {
            case MapType.HTTP_REQUEST_HEADERS -> rules.headers(true);
            case MapType.HTTP_REQUEST_TRAILERS -> rules.trailers(true);
            case MapType.HTTP_RESPONSE_HEADERS -> rules.headers(false);
            case MapType.HTTP_RESPONSE_TRAILERS -> rules.trailers(false);
            default -> null;
        };
    }

    /** Maps are read-only once they went on, and during {@code proxy_on_log}. */
    boolean writable(int mapType) {
        return switch (mapType) {
            case MapType.HTTP_REQUEST_HEADERS -> rules.writable(true, false);
            case MapType.HTTP_REQUEST_TRAILERS -> rules.writable(true, true);
            case MapType.HTTP_RESPONSE_HEADERS -> rules.writable(false, false);
            case MapType.HTTP_RESPONSE_TRAILERS -> rules.writable(false, true);
            default -> false;
        };
    }

    byte[] body(boolean requestBody) {
        return rules.body(requestBody);
    }

    void replaceBody(boolean requestBody, byte[] body) {
        rules.replaceBody(requestBody, body);
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
        if (key.equals(DECODER_BUFFER_LIMIT_PROPERTY)) {
            // Higress: the filter raises (or lowers) this stream's request buffer limit; a malformed value is ignored.
            try {
                rules.setRequestBufferLimit(Long.parseLong(new String(value, StandardCharsets.UTF_8).trim()));
            } catch (NumberFormatException e) {
                // Envoy keeps the limit it had.
            }
        }
    }

    /** The stream's request buffer limit (see {@link Gateway.Builder#withRequestBufferLimit}). */
    public long requestBufferLimit() {
        return rules.requestBufferLimit();
    }

    List<ClusterHost> upstreamHosts() {
        if (upstreamHosts != null) {
            return upstreamHosts;
        }
        byte[] cluster = findProperty("cluster_name");
        return cluster == null ? List.of() : vm.gateway().upstreamHosts(new String(cluster, StandardCharsets.UTF_8));
    }

    void overrideUpstream(String address) {
        rules.overrideUpstream(address);
    }

    void requestLocalReply(LocalReply reply) {
        rules.requestLocalReply(reply);
    }

    void requestContinue(boolean requestDirection) {
        rules.requestContinue(requestDirection);
    }

    void requestClose() {
        rules.requestClose();
    }

    void applyDeferred() {
        rules.applyDeferred();
    }
}
