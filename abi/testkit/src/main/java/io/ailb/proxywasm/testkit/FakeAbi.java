package io.ailb.proxywasm.testkit;

import io.ailb.codec.map.ProxyMaps;
import io.ailb.proxywasm.ProxyWasmException;
import io.ailb.proxywasm.SharedValue;
import io.ailb.proxywasm.UpstreamHost;
import io.ailb.proxywasm.bindings.BufferType;
import io.ailb.proxywasm.bindings.MapType;
import io.ailb.proxywasm.bindings.MetricType;
import io.ailb.proxywasm.bindings.StreamType;
import io.ailb.proxywasm.bindings.WasmResult;
import io.ailb.proxywasm.internal.Abi;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The SDK's host boundary answered by a {@link FakeHost}, with Envoy's (Higress fork's) statuses: what the real host
 * refuses is refused here with the same {@code WasmResult}, thrown as the {@link ProxyWasmException} the SDK's
 * {@code WasmAbi} would throw, or read as absent where the SDK reads NOT_FOUND so.
 */
final class FakeAbi implements Abi {
    /** Addresses handed out by {@link #allocate}: nothing is written there on the JVM, they only have to differ. */
    private static final int FIRST_ADDRESS = 1024;

    private static final int ALIGNMENT = 8;

    private final FakeHost host;
    private int nextAddress = FIRST_ADDRESS;

    FakeAbi(FakeHost host) {
        this.host = host;
    }

    /** Counts the call and throws the failure the test scripted for it, if any. */
    private void enter(String call) {
        Integer failure = host.enter(call);
        if (failure != null) {
            throw new ProxyWasmException(call, failure);
        }
    }

    /** As {@link #enter}, for calls whose NOT_FOUND the SDK reads as "absent": true when the call reports absent. */
    private boolean enterReportsAbsent(String call) {
        Integer failure = host.enter(call);
        if (failure == null) {
            return false;
        }
        if (failure == WasmResult.NOT_FOUND) {
            return true;
        }
        throw new ProxyWasmException(call, failure);
    }

    private static ProxyWasmException refused(String call, int status) {
        return new ProxyWasmException(call, status);
    }

    @Override
    public int allocate(int size) {
        enter("proxy_on_memory_allocate");
        int address = nextAddress;
        nextAddress += Math.max(ALIGNMENT, (size + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT);
        return address;
    }

    // ---- logging and time

    @Override
    public void log(int level, String message) {
        enter("proxy_log");
        host.log(level, message);
    }

    @Override
    public int logLevel() {
        enter("proxy_get_log_level");
        return host.logLevel();
    }

    @Override
    public void setTickPeriod(int millis) {
        enter("proxy_set_tick_period_milliseconds");
        host.setTickPeriod(millis);
    }

    // ---- buffers

    /** The buffer the current context can read now, or null. */
    private byte[] buffer(int bufferType) {
        FakeStream stream = host.currentStream();
        switch (bufferType) {
            case BufferType.HTTP_REQUEST_BODY:
                return stream == null ? null : stream.body(true);
            case BufferType.HTTP_RESPONSE_BODY:
                return stream == null ? null : stream.body(false);
            case BufferType.HTTP_CALL_RESPONSE_BODY:
                return host.httpResponse() == null ? null : host.httpResponse().body();
            case BufferType.VM_CONFIGURATION:
                return host.vmConfigBuffer();
            case BufferType.PLUGIN_CONFIGURATION:
                return host.pluginConfigBuffer();
            case BufferType.REDIS_CALL_RESPONSE:
                return host.redisReplyBuffer();
            default:
                return null;
        }
    }

    @Override
    public byte[] getBuffer(int bufferType, int start, int maxSize) {
        host.bufferRead(bufferType);
        byte[] buffer = enterReportsAbsent("proxy_get_buffer_bytes") ? null : buffer(bufferType);
        if (buffer == null) {
            return new byte[0];
        }
        if (start < 0 || maxSize < 0) {
            throw refused("proxy_get_buffer_bytes", WasmResult.BAD_ARGUMENT);
        }
        // The host clamps the range to the buffer.
        int from = Math.min(start, buffer.length);
        int length = (int) Math.min((long) maxSize, buffer.length - from);
        byte[] slice = new byte[length];
        System.arraycopy(buffer, from, slice, 0, length);
        return slice;
    }

    @Override
    public void setBuffer(int bufferType, int start, int size, byte[] data) {
        enter("proxy_set_buffer_bytes");
        FakeStream stream = host.currentStream();
        boolean requestBody = bufferType == BufferType.HTTP_REQUEST_BODY;
        if (!requestBody && bufferType != BufferType.HTTP_RESPONSE_BODY) {
            throw refused(
                    "proxy_set_buffer_bytes",
                    buffer(bufferType) == null ? WasmResult.NOT_FOUND : WasmResult.BAD_ARGUMENT);
        }
        if (stream == null) {
            throw refused("proxy_set_buffer_bytes", WasmResult.NOT_FOUND);
        }
        byte[] body = stream.body(requestBody);
        if (start < 0 || start > body.length || size < 0) {
            throw refused("proxy_set_buffer_bytes", WasmResult.BAD_ARGUMENT);
        }
        int end = (int) Math.min((long) start + size, body.length);
        byte[] spliced = new byte[start + data.length + (body.length - end)];
        System.arraycopy(body, 0, spliced, 0, start);
        System.arraycopy(data, 0, spliced, start, data.length);
        System.arraycopy(body, end, spliced, start + data.length, body.length - end);
        stream.replaceBody(requestBody, spliced);
    }

    // ---- header maps

    private List<Map.Entry<String, String>> map(int mapType) {
        if (mapType == MapType.HTTP_CALL_RESPONSE_HEADERS || mapType == MapType.HTTP_CALL_RESPONSE_TRAILERS) {
            HttpAnswer response = host.httpResponse();
            if (response == null) {
                return null;
            }
            return mapType == MapType.HTTP_CALL_RESPONSE_HEADERS ? response.headers() : response.trailers();
        }
        FakeStream stream = host.currentStream();
        return stream == null ? null : stream.map(mapType);
    }

    /** The map if the current context may change it; else throws NOT_FOUND (no such map) or BAD_ARGUMENT. */
    private List<Map.Entry<String, String>> writableMap(String call, int mapType) {
        FakeStream stream = host.currentStream();
        if (stream != null && stream.map(mapType) != null && stream.writable(mapType)) {
            return stream.map(mapType);
        }
        throw refused(call, map(mapType) == null ? WasmResult.NOT_FOUND : WasmResult.BAD_ARGUMENT);
    }

    @Override
    public String getHeaderMapValue(int mapType, String key) {
        if (enterReportsAbsent("proxy_get_header_map_value")) {
            return null;
        }
        List<Map.Entry<String, String>> map = map(mapType);
        return map == null ? null : Pairs.first(map, key).orElse(null);
    }

    @Override
    public List<Map.Entry<String, String>> getHeaderMapPairs(int mapType) {
        enter("proxy_get_header_map_pairs");
        List<Map.Entry<String, String>> map = map(mapType);
        if (map == null) {
            throw refused("proxy_get_header_map_pairs", WasmResult.NOT_FOUND);
        }
        List<Map.Entry<String, String>> copy = new ArrayList<>(map.size());
        for (Map.Entry<String, String> pair : map) {
            copy.add(new SimpleImmutableEntry<>(pair.getKey(), pair.getValue()));
        }
        return copy;
    }

    @Override
    public void setHeaderMapPairs(int mapType, List<Map.Entry<String, String>> pairs) {
        enter("proxy_set_header_map_pairs");
        List<Map.Entry<String, String>> map = writableMap("proxy_set_header_map_pairs", mapType);
        map.clear();
        map.addAll(Pairs.copy(pairs));
    }

    @Override
    public void addHeaderMapValue(int mapType, String key, String value) {
        enter("proxy_add_header_map_value");
        writableMap("proxy_add_header_map_value", mapType).addAll(Pairs.of(key, value));
    }

    @Override
    public void replaceHeaderMapValue(int mapType, String key, String value) {
        enter("proxy_replace_header_map_value");
        Pairs.replace(writableMap("proxy_replace_header_map_value", mapType), key, value);
    }

    @Override
    public void removeHeaderMapValue(int mapType, String key) {
        enter("proxy_remove_header_map_value");
        Pairs.remove(writableMap("proxy_remove_header_map_value", mapType), key);
    }

    // ---- properties

    @Override
    public byte[] getProperty(List<String> path) {
        if (enterReportsAbsent("proxy_get_property")) {
            return null;
        }
        String key = String.join("\0", path);
        FakeStream stream = host.currentStream();
        byte[] value = stream != null ? stream.findProperty(key) : host.hostProperty(key);
        return value == null ? null : value.clone();
    }

    @Override
    public void setProperty(List<String> path, byte[] value) {
        enter("proxy_set_property");
        String key = String.join("\0", path);
        FakeStream stream = host.currentStream();
        if (stream != null) {
            stream.setProperty(key, value.clone());
        } else {
            host.setHostProperty(key, value.clone());
        }
    }

    // ---- stream control

    private FakeStream requireStream(String call) {
        FakeStream stream = host.currentStream();
        if (stream == null) {
            throw refused(call, WasmResult.NOT_FOUND);
        }
        return stream;
    }

    @Override
    public void continueStream(int streamType) {
        enter("proxy_continue_stream");
        FakeStream stream = requireStream("proxy_continue_stream");
        if (streamType != StreamType.HTTP_REQUEST && streamType != StreamType.HTTP_RESPONSE) {
            throw refused("proxy_continue_stream", WasmResult.BAD_ARGUMENT);
        }
        stream.requestContinue(streamType == StreamType.HTTP_REQUEST);
    }

    @Override
    public void closeStream(int streamType) {
        enter("proxy_close_stream");
        requireStream("proxy_close_stream").requestClose();
    }

    @Override
    public void sendLocalResponse(
            int statusCode, String details, byte[] body, List<Map.Entry<String, String>> headers, int grpcStatus) {
        enter("proxy_send_local_response");
        requireStream("proxy_send_local_response")
                .requestLocalResponse(
                        new LocalResponse(statusCode, details, body.clone(), List.copyOf(headers), grpcStatus));
    }

    // ---- HTTP callouts

    @Override
    public int httpCall(
            String cluster,
            List<Map.Entry<String, String>> headers,
            byte[] body,
            List<Map.Entry<String, String>> trailers,
            int timeoutMillis) {
        enter("proxy_http_call");
        for (String required : List.of(":method", ":path", ":authority")) {
            if (Pairs.first(headers, required).isEmpty()) {
                throw refused("proxy_http_call", WasmResult.BAD_ARGUMENT);
            }
        }
        return host.httpCall(cluster, headers, body, trailers, timeoutMillis);
    }

    // ---- shared data

    @Override
    public SharedValue getSharedData(String key) {
        if (enterReportsAbsent("proxy_get_shared_data")) {
            return null;
        }
        SharedValue value = host.sharedDataStore().get(key);
        return value == null ? null : new SharedValue(value.value().clone(), value.cas());
    }

    @Override
    public boolean setSharedData(String key, byte[] value, int cas) {
        enter("proxy_set_shared_data");
        Map<String, SharedValue> store = host.sharedDataStore();
        SharedValue current = store.get(key);
        if (cas != 0 && (current == null || current.cas() != cas)) {
            return false;
        }
        store.put(key, new SharedValue(value.clone(), current == null ? 1 : current.cas() + 1));
        return true;
    }

    // ---- metrics

    @Override
    public int defineMetric(int metricType, String name) {
        enter("proxy_define_metric");
        if (metricType < MetricType.COUNTER || metricType > MetricType.HISTOGRAM) {
            throw refused("proxy_define_metric", WasmResult.BAD_ARGUMENT);
        }
        int id = host.metrics().define(metricType, name);
        if (id < 0) {
            throw refused("proxy_define_metric", WasmResult.BAD_ARGUMENT);
        }
        return id;
    }

    @Override
    public void incrementMetric(int metricId, long delta) {
        enter("proxy_increment_metric");
        check("proxy_increment_metric", host.metrics().increment(metricId, delta));
    }

    @Override
    public void recordMetric(int metricId, long value) {
        enter("proxy_record_metric");
        check("proxy_record_metric", host.metrics().record(metricId, value));
    }

    @Override
    public long getMetric(int metricId) {
        enter("proxy_get_metric");
        check("proxy_get_metric", host.metrics().readStatus(metricId));
        return host.metrics().read(metricId);
    }

    private static void check(String call, int status) {
        if (status != WasmResult.OK) {
            throw refused(call, status);
        }
    }

    // ---- contexts

    @Override
    public void setEffectiveContext(int contextId) {
        enter("proxy_set_effective_context");
        if (!host.setEffectiveContext(contextId)) {
            throw refused("proxy_set_effective_context", WasmResult.BAD_ARGUMENT);
        }
    }

    // ---- Higress extensions

    @Override
    public void redisInit(String cluster, String username, String password, int timeoutMillis) {
        enter("proxy_redis_init");
        if (!host.redisInit(cluster)) {
            throw refused("proxy_redis_init", WasmResult.BAD_ARGUMENT);
        }
    }

    @Override
    public int redisCall(String cluster, byte[] query) {
        enter("proxy_redis_call");
        if (!host.redisKnown(cluster)) {
            throw refused("proxy_redis_call", WasmResult.BAD_ARGUMENT);
        }
        if (!host.redisInitialised(cluster)) {
            throw refused("proxy_redis_call", WasmResult.INTERNAL_FAILURE);
        }
        return host.redisCall(cluster, query);
    }

    @Override
    public byte[] getUpstreamHosts() {
        enter("proxy_get_upstream_hosts");
        List<UpstreamHost> hosts = host.upstreamHostsOf(host.currentStream());
        List<Map.Entry<String, String>> pairs = new ArrayList<>(hosts.size());
        for (UpstreamHost upstream : hosts) {
            pairs.add(new SimpleImmutableEntry<>(upstream.address(), upstream.info()));
        }
        return pairs.isEmpty() ? new byte[0] : ProxyMaps.encode(pairs);
    }

    @Override
    public void setUpstreamOverrideHost(String address) {
        enter("proxy_set_upstream_override_host");
        FakeStream stream = host.currentStream();
        if (stream == null) {
            throw refused("proxy_set_upstream_override_host", WasmResult.BAD_ARGUMENT);
        }
        stream.overrideUpstream(address);
    }
}
