package io.ailb.proxywasm.testkit;

import io.ailb.hostkit.FilterStream;
import io.ailb.proxywasm.UpstreamHost;
import io.ailb.proxywasm.bindings.MapType;
import io.ailb.proxywasm.bindings.ProxyWasmExports;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap.SimpleEntry;
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
 * <p>Envoy's rules, kept in {@link FilterStream}: a body chunk extends the buffered body while the guest buffers ({@code body_size} is
 * cumulative); after a {@code StopAllIteration} headers status Envoy buffers chunks without calling the guest and hands
 * them over in one callback on continue; on the response side {@code StopIteration} acts as {@code StopAllIteration};
 * a local reply passes the guest's response callbacks and ends the stream; header maps are read-only once they went
 * on, and all of them during {@code proxy_on_log}.
 */
public final class FakeStream {
    private final FakeHost host;
    private final int contextId;
    private final Map<String, byte[]> properties = new HashMap<>();
    private final FilterStream<List<Map.Entry<String, String>>, LocalResponse> rules;
    private List<UpstreamHost> upstreamHosts;

    FakeStream(FakeHost host, int contextId) {
        this.host = host;
        this.contextId = contextId;
        this.rules = new FilterStream<>(new GuestCalls(), contextId);
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
        return rules.sendHeaders(true, Pairs.copy(headers), endOfStream);
    }

    public int sendRequestBody(String chunk, boolean endOfStream) {
        return sendRequestBody(chunk.getBytes(StandardCharsets.UTF_8), endOfStream);
    }

    public int sendRequestBody(byte[] chunk, boolean endOfStream) {
        return rules.sendBody(true, chunk, endOfStream, true);
    }

    public int sendRequestTrailers(List<Map.Entry<String, String>> trailers) {
        return rules.sendTrailers(true, Pairs.copy(trailers));
    }

    public int sendResponseHeaders(List<Map.Entry<String, String>> headers, boolean endOfStream) {
        return rules.sendHeaders(false, Pairs.copy(headers), endOfStream);
    }

    public int sendResponseBody(String chunk, boolean endOfStream) {
        return sendResponseBody(chunk.getBytes(StandardCharsets.UTF_8), endOfStream);
    }

    public int sendResponseBody(byte[] chunk, boolean endOfStream) {
        return rules.sendBody(false, chunk, endOfStream, true);
    }

    public int sendResponseTrailers(List<Map.Entry<String, String>> trailers) {
        return rules.sendTrailers(false, Pairs.copy(trailers));
    }

    /** The stream finished: the end callbacks run now (log, done, delete). */
    public void complete() {
        rules.end();
    }

    /**
     * The client or the upstream reset the stream: the same end callbacks, at any point, also while a callout is due
     * (its answer then reaches the root context with no stream left).
     */
    public void reset() {
        rules.end();
    }

    // ---- reading back

    public int contextId() {
        return contextId;
    }

    /** The host set with {@code proxy_set_upstream_override_host}, if any. */
    public Optional<String> upstreamOverride() {
        return Optional.ofNullable(rules.upstreamOverride());
    }

    /** Whether the override came after the request headers went to the router (Envoy then ignores it). */
    public boolean upstreamOverrideAfterRouting() {
        return rules.upstreamOverrideAfterRouting();
    }

    public Optional<LocalResponse> localResponse() {
        return Optional.ofNullable(rules.localReply());
    }

    /** The request headers with the guest's changes; empty before they were sent. */
    public List<Map.Entry<String, String>> requestHeaders() {
        List<Map.Entry<String, String>> headers = rules.headers(true);
        return headers == null ? List.of() : List.copyOf(headers);
    }

    /** The first request header with this name, as the guest left it. */
    public Optional<String> requestHeader(String name) {
        List<Map.Entry<String, String>> headers = rules.headers(true);
        return headers == null ? Optional.empty() : Pairs.first(headers, name);
    }

    /** The response headers as the guest left them (for a local reply: the reply's). */
    public List<Map.Entry<String, String>> responseHeaders() {
        List<Map.Entry<String, String>> headers = rules.headers(false);
        return headers == null ? List.of() : List.copyOf(headers);
    }

    /** The request body that went past the guest to the upstream. */
    public byte[] forwardedRequestBody() {
        return rules.forwardedBody(true);
    }

    /** The response body that went past the guest to the client. */
    public byte[] forwardedResponseBody() {
        return rules.forwardedBody(false);
    }

    /** Whether the request headers went on to the router. */
    public boolean requestHeadersForwarded() {
        return rules.headersForwarded(true);
    }

    /** Whether the guest holds request headers or data (waiting for more body or for its own continue). */
    public boolean isRequestPaused() {
        return rules.isRequestPaused();
    }

    /** Whether the end callbacks ran. */
    public boolean isEnded() {
        return rules.isEnded();
    }

    /** A property as the guest would read it now: its own, else the host's. */
    public Optional<String> property(String path) {
        byte[] value = findProperty(FakeHost.propertyKey(path));
        return value == null ? Optional.empty() : Optional.of(new String(value, StandardCharsets.UTF_8));
    }

    /** How the filter manager calls this guest's exports on the JVM. */
    private final class GuestCalls implements FilterStream.Host<List<Map.Entry<String, String>>, LocalResponse> {
        @Override
        public int onHeaders(boolean request, int count, boolean endOfStream) {
            int eos = endOfStream ? 1 : 0;
            return request
                    ? host.invoke(contextId, () -> ProxyWasmExports.proxyOnRequestHeaders(contextId, count, eos))
                    : host.invoke(contextId, () -> ProxyWasmExports.proxyOnResponseHeaders(contextId, count, eos));
        }

        @Override
        public int onBody(boolean request, int size, boolean endOfStream) {
            int eos = endOfStream ? 1 : 0;
            return request
                    ? host.invoke(contextId, () -> ProxyWasmExports.proxyOnRequestBody(contextId, size, eos))
                    : host.invoke(contextId, () -> ProxyWasmExports.proxyOnResponseBody(contextId, size, eos));
        }

        @Override
        public int onTrailers(boolean request, int count) {
            return request
                    ? host.invoke(contextId, () -> ProxyWasmExports.proxyOnRequestTrailers(contextId, count))
                    : host.invoke(contextId, () -> ProxyWasmExports.proxyOnResponseTrailers(contextId, count));
        }

        @Override
        public void onEnd() {
            host.invoke(contextId, () -> {
                ProxyWasmExports.proxyOnLog(contextId);
                return 0;
            });
            host.invoke(contextId, () -> ProxyWasmExports.proxyOnDone(contextId));
            host.invoke(contextId, () -> {
                ProxyWasmExports.proxyOnDelete(contextId);
                return 0;
            });
        }

        @Override
        public void forget() {
            host.forget(FakeStream.this);
        }

        @Override
        public void defer() {
            host.defer(FakeStream.this);
        }

        @Override
        public void settle() {
            host.settle();
        }

        @Override
        public int count(List<Map.Entry<String, String>> headers) {
            return headers.size();
        }

        @Override
        public List<Map.Entry<String, String>> replyHeaders(LocalResponse reply) {
            List<Map.Entry<String, String>> headers = Pairs.of(":status", Integer.toString(reply.status()));
            headers.addAll(Pairs.copy(reply.headers()));
            int bodyLength = reply.body().length;
            if (bodyLength > 0) {
                Pairs.replace(headers, "content-length", Integer.toString(bodyLength));
                if (Pairs.first(headers, "content-type").isEmpty()) {
                    headers.add(new SimpleEntry<>("content-type", "text/plain"));
                }
            }
            return headers;
        }

        @Override
        public byte[] replyBody(LocalResponse reply) {
            return reply.body();
        }

        @Override
        public LocalResponse payloadTooLarge() {
            return new LocalResponse(
                    413,
                    "request_payload_too_large",
                    "Payload Too Large".getBytes(StandardCharsets.UTF_8),
                    List.of(),
                    -1);
        }

        @Override
        public boolean bypassed(FilterStream<List<Map.Entry<String, String>>, LocalResponse> stream, boolean request) {
            return false;
        }
    }

    // ---- what the host calls see

    List<Map.Entry<String, String>> map(int mapType) {
        switch (mapType) {
            case MapType.HTTP_REQUEST_HEADERS:
                return rules.headers(true);
            case MapType.HTTP_REQUEST_TRAILERS:
                return rules.trailers(true);
            case MapType.HTTP_RESPONSE_HEADERS:
                return rules.headers(false);
            case MapType.HTTP_RESPONSE_TRAILERS:
                return rules.trailers(false);
            default:
                return null;
        }
    }

    /** Maps are read-only once they went on, and during {@code proxy_on_log}. */
    boolean writable(int mapType) {
        switch (mapType) {
            case MapType.HTTP_REQUEST_HEADERS:
                return rules.writable(true, false);
            case MapType.HTTP_REQUEST_TRAILERS:
                return rules.writable(true, true);
            case MapType.HTTP_RESPONSE_HEADERS:
                return rules.writable(false, false);
            case MapType.HTTP_RESPONSE_TRAILERS:
                return rules.writable(false, true);
            default:
                return false;
        }
    }

    byte[] body(boolean requestBody) {
        return rules.body(requestBody);
    }

    void replaceBody(boolean requestBody, byte[] body) {
        rules.replaceBody(requestBody, body);
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
        rules.overrideUpstream(address);
    }

    void requestLocalResponse(LocalResponse reply) {
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
