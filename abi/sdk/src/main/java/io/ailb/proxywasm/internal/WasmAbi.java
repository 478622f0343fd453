package io.ailb.proxywasm.internal;

import static io.ailb.proxywasm.bindings.ProxyWasmImports.*;
import static io.ailb.proxywasm.internal.Memory.address;
import static io.ailb.proxywasm.internal.Memory.keep;

import io.ailb.codec.map.ProxyMaps;
import io.ailb.codec.util.Utf8;
import io.ailb.proxywasm.ProxyWasmException;
import io.ailb.proxywasm.SharedValue;
import io.ailb.proxywasm.bindings.WasmResult;
import java.util.List;
import java.util.Map;

/**
 * {@link Abi} on the real host: TeaVM {@code @Import}s plus the memory protocol of {@link Memory}.
 *
 * <p>Every method follows the same order: build all argument arrays and out-param arrays first (allocation may move
 * objects), clear pending buffers if the host may allocate, take addresses only inside the call expression, and use
 * every array after the call ({@link Memory#keep} or reading the out-params) so TeaVM keeps it pinned meanwhile.
 */
public final class WasmAbi implements Abi {
    private static final byte[] EMPTY = new byte[0];

    @Override
    public int allocate(int size) {
        return Memory.allocate(size);
    }

    @Override
    public void log(int level, String message) {
        byte[] text = utf8(message);
        Memory.beforeHostCall();
        int status = proxyLog(level, address(text), text.length);
        keep(text);
        check("proxy_log", status);
    }

    @Override
    public int logLevel() {
        Memory.beforeHostCall();
        int status = proxyGetLogLevel(OutParams.address(0));
        check("proxy_get_log_level", status);
        return OutParams.intAt(0);
    }

    @Override
    public void setTickPeriod(int millis) {
        Memory.beforeHostCall();
        check("proxy_set_tick_period_milliseconds", proxySetTickPeriodMilliseconds(millis));
    }

    @Override
    public byte[] getBuffer(int bufferType, int start, int maxSize) {
        Memory.clearPending();
        Memory.beforeHostCall();
        int status = proxyGetBufferBytes(bufferType, start, maxSize, OutParams.address(0), OutParams.address(1));
        if (status == WasmResult.NOT_FOUND) {
            return EMPTY;
        }
        check("proxy_get_buffer_bytes", status);
        return Memory.take(OutParams.intAt(0), OutParams.intAt(1));
    }

    @Override
    public void setBuffer(int bufferType, int start, int size, byte[] data) {
        Memory.beforeHostCall();
        int status = proxySetBufferBytes(bufferType, start, size, address(data), data.length);
        keep(data);
        check("proxy_set_buffer_bytes", status);
    }

    @Override
    public String getHeaderMapValue(int mapType, String key) {
        byte[] name = utf8(key);
        Memory.clearPending();
        Memory.beforeHostCall();
        int status =
                proxyGetHeaderMapValue(mapType, address(name), name.length, OutParams.address(0), OutParams.address(1));
        keep(name);
        if (status == WasmResult.NOT_FOUND) {
            return null;
        }
        check("proxy_get_header_map_value", status);
        return Utf8.decode(Memory.take(OutParams.intAt(0), OutParams.intAt(1)));
    }

    @Override
    public List<Map.Entry<String, String>> getHeaderMapPairs(int mapType) {
        Memory.clearPending();
        Memory.beforeHostCall();
        int status = proxyGetHeaderMapPairs(mapType, OutParams.address(0), OutParams.address(1));
        check("proxy_get_header_map_pairs", status);
        byte[] map = Memory.take(OutParams.intAt(0), OutParams.intAt(1));
        return ProxyMaps.decode(map, 0, map.length);
    }

    @Override
    public void setHeaderMapPairs(int mapType, List<Map.Entry<String, String>> pairs) {
        byte[] map = ProxyMaps.encode(pairs);
        Memory.beforeHostCall();
        int status = proxySetHeaderMapPairs(mapType, address(map), map.length);
        keep(map);
        check("proxy_set_header_map_pairs", status);
    }

    @Override
    public void addHeaderMapValue(int mapType, String key, String value) {
        byte[] name = utf8(key);
        byte[] text = utf8(value);
        Memory.beforeHostCall();
        int status = proxyAddHeaderMapValue(mapType, address(name), name.length, address(text), text.length);
        keep(name);
        keep(text);
        check("proxy_add_header_map_value", status);
    }

    @Override
    public void replaceHeaderMapValue(int mapType, String key, String value) {
        byte[] name = utf8(key);
        byte[] text = utf8(value);
        Memory.beforeHostCall();
        int status = proxyReplaceHeaderMapValue(mapType, address(name), name.length, address(text), text.length);
        keep(name);
        keep(text);
        check("proxy_replace_header_map_value", status);
    }

    @Override
    public void removeHeaderMapValue(int mapType, String key) {
        byte[] name = utf8(key);
        Memory.beforeHostCall();
        int status = proxyRemoveHeaderMapValue(mapType, address(name), name.length);
        keep(name);
        check("proxy_remove_header_map_value", status);
    }

    @Override
    public byte[] getProperty(List<String> path) {
        byte[] joined = joinPath(path);
        Memory.clearPending();
        Memory.beforeHostCall();
        int status = proxyGetProperty(address(joined), joined.length, OutParams.address(0), OutParams.address(1));
        keep(joined);
        if (status == WasmResult.NOT_FOUND) {
            return null;
        }
        check("proxy_get_property", status);
        return Memory.take(OutParams.intAt(0), OutParams.intAt(1));
    }

    @Override
    public void setProperty(List<String> path, byte[] value) {
        byte[] joined = joinPath(path);
        Memory.beforeHostCall();
        int status = proxySetProperty(address(joined), joined.length, address(value), value.length);
        keep(joined);
        keep(value);
        check("proxy_set_property", status);
    }

    @Override
    public void continueStream(int streamType) {
        Memory.beforeHostCall();
        check("proxy_continue_stream", proxyContinueStream(streamType));
    }

    @Override
    public void closeStream(int streamType) {
        Memory.beforeHostCall();
        check("proxy_close_stream", proxyCloseStream(streamType));
    }

    @Override
    public void sendLocalResponse(
            int statusCode, String details, byte[] body, List<Map.Entry<String, String>> headers, int grpcStatus) {
        byte[] detailText = utf8(details);
        byte[] map = ProxyMaps.encode(headers);
        Memory.beforeHostCall();
        int status = proxySendLocalResponse(
                statusCode,
                address(detailText),
                detailText.length,
                address(body),
                body.length,
                address(map),
                map.length,
                grpcStatus);
        keep(detailText);
        keep(body);
        keep(map);
        check("proxy_send_local_response", status);
    }

    @Override
    public int httpCall(
            String cluster,
            List<Map.Entry<String, String>> headers,
            byte[] body,
            List<Map.Entry<String, String>> trailers,
            int timeoutMillis) {
        byte[] upstream = utf8(cluster);
        byte[] headerMap = ProxyMaps.encode(headers);
        byte[] trailerMap = ProxyMaps.encode(trailers);
        Memory.beforeHostCall();
        int status = proxyHttpCall(
                address(upstream),
                upstream.length,
                address(headerMap),
                headerMap.length,
                address(body),
                body.length,
                address(trailerMap),
                trailerMap.length,
                timeoutMillis,
                OutParams.address(0));
        keep(upstream);
        keep(headerMap);
        keep(body);
        keep(trailerMap);
        check("proxy_http_call", status);
        return OutParams.intAt(0);
    }

    @Override
    public SharedValue getSharedData(String key) {
        byte[] name = utf8(key);
        Memory.clearPending();
        Memory.beforeHostCall();
        int status = proxyGetSharedData(
                address(name), name.length, OutParams.address(0), OutParams.address(1), OutParams.address(2));
        keep(name);
        if (status == WasmResult.NOT_FOUND) {
            return null;
        }
        check("proxy_get_shared_data", status);
        int cas = OutParams.intAt(2);
        return new SharedValue(Memory.take(OutParams.intAt(0), OutParams.intAt(1)), cas);
    }

    @Override
    public boolean setSharedData(String key, byte[] value, int cas) {
        byte[] name = utf8(key);
        Memory.beforeHostCall();
        int status = proxySetSharedData(address(name), name.length, address(value), value.length, cas);
        keep(name);
        keep(value);
        if (status == WasmResult.CAS_MISMATCH) {
            return false;
        }
        check("proxy_set_shared_data", status);
        return true;
    }

    @Override
    public int defineMetric(int metricType, String name) {
        byte[] text = utf8(name);
        Memory.beforeHostCall();
        int status = proxyDefineMetric(metricType, address(text), text.length, OutParams.address(0));
        keep(text);
        check("proxy_define_metric", status);
        return OutParams.intAt(0);
    }

    @Override
    public void incrementMetric(int metricId, long delta) {
        Memory.beforeHostCall();
        check("proxy_increment_metric", proxyIncrementMetric(metricId, delta));
    }

    @Override
    public void recordMetric(int metricId, long value) {
        Memory.beforeHostCall();
        check("proxy_record_metric", proxyRecordMetric(metricId, value));
    }

    @Override
    public long getMetric(int metricId) {
        Memory.beforeHostCall();
        int status = proxyGetMetric(metricId, OutParams.address(0));
        check("proxy_get_metric", status);
        return OutParams.longAt(0);
    }

    @Override
    public void setEffectiveContext(int contextId) {
        Memory.beforeHostCall();
        check("proxy_set_effective_context", proxySetEffectiveContext(contextId));
    }

    @Override
    public void redisInit(String cluster, String username, String password, int timeoutMillis) {
        byte[] name = utf8(cluster);
        byte[] user = utf8(username);
        byte[] secret = utf8(password);
        Memory.beforeHostCall();
        int status = proxyRedisInit(
                address(name), name.length, address(user), user.length, address(secret), secret.length, timeoutMillis);
        keep(name);
        keep(user);
        keep(secret);
        check("proxy_redis_init", status);
    }

    @Override
    public int redisCall(String cluster, byte[] query) {
        byte[] name = utf8(cluster);
        Memory.beforeHostCall();
        int status = proxyRedisCall(address(name), name.length, address(query), query.length, OutParams.address(0));
        keep(name);
        keep(query);
        check("proxy_redis_call", status);
        return OutParams.intAt(0);
    }

    @Override
    public byte[] getUpstreamHosts() {
        Memory.clearPending();
        Memory.beforeHostCall();
        int status = proxyGetUpstreamHosts(OutParams.address(0), OutParams.address(1));
        if (status == WasmResult.NOT_FOUND) {
            return new byte[0];
        }
        check("proxy_get_upstream_hosts", status);
        return Memory.take(OutParams.intAt(0), OutParams.intAt(1));
    }

    @Override
    public void setUpstreamOverrideHost(String address) {
        byte[] text = utf8(address);
        Memory.beforeHostCall();
        int status = proxySetUpstreamOverrideHost(address(text), text.length);
        keep(text);
        check("proxy_set_upstream_override_host", status);
    }

    private static void check(String call, int status) {
        if (status != WasmResult.OK) {
            throw new ProxyWasmException(call, status);
        }
    }

    private static byte[] utf8(String text) {
        return Utf8.encode(text);
    }

    /** proxy-wasm property paths are their segments joined by NUL. */
    static byte[] joinPath(List<String> path) {
        StringBuilder joined = new StringBuilder();
        for (int i = 0; i < path.size(); i++) {
            if (i > 0) {
                joined.append('\0');
            }
            joined.append(path.get(i));
        }
        return utf8(joined.toString());
    }
}
