package io.ailb.proxywasm.internal;

import io.ailb.proxywasm.ProxyWasmException;
import io.ailb.proxywasm.SharedValue;
import io.ailb.proxywasm.bindings.WasmResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A scripted host for dispatcher tests: records what the SDK asked for, answers from fields the test sets. */
final class FakeAbi implements Abi {
    final List<String> logs = new ArrayList<>();
    final Map<Integer, byte[]> buffers = new HashMap<>();
    final Map<Integer, List<Map.Entry<String, String>>> maps = new HashMap<>();
    final List<Integer> effectiveContexts = new ArrayList<>();
    final List<Integer> bufferReads = new ArrayList<>();
    final List<String> redisQueries = new ArrayList<>();
    byte[] upstreamHosts = new byte[0];
    int upstreamHostsCalls;
    int nextToken = 7;
    boolean failAllocations;
    boolean failLogging;
    int effectiveContextStatus = WasmResult.OK;

    @Override
    public int allocate(int size) {
        if (failAllocations) {
            throw new OutOfMemoryError("fake");
        }
        return 1024;
    }

    @Override
    public void log(int level, String message) {
        if (failLogging) {
            throw new ProxyWasmException("proxy_log", WasmResult.INTERNAL_FAILURE);
        }
        logs.add(level + " " + message);
    }

    @Override
    public int logLevel() {
        return 0;
    }

    @Override
    public void setTickPeriod(int millis) {
        throw unexpected("setTickPeriod");
    }

    @Override
    public byte[] getBuffer(int bufferType, int start, int maxSize) {
        bufferReads.add(bufferType);
        byte[] buffer = buffers.getOrDefault(bufferType, new byte[0]);
        int end = Math.min(buffer.length, start + maxSize);
        byte[] slice = new byte[Math.max(0, end - start)];
        System.arraycopy(buffer, start, slice, 0, slice.length);
        return slice;
    }

    @Override
    public void setBuffer(int bufferType, int start, int size, byte[] data) {
        throw unexpected("setBuffer");
    }

    @Override
    public String getHeaderMapValue(int mapType, String key) {
        for (Map.Entry<String, String> entry : maps.getOrDefault(mapType, List.of())) {
            if (entry.getKey().equals(key)) {
                return entry.getValue();
            }
        }
        return null;
    }

    @Override
    public List<Map.Entry<String, String>> getHeaderMapPairs(int mapType) {
        return maps.getOrDefault(mapType, List.of());
    }

    @Override
    public void setHeaderMapPairs(int mapType, List<Map.Entry<String, String>> pairs) {
        throw unexpected("setHeaderMapPairs");
    }

    @Override
    public void addHeaderMapValue(int mapType, String key, String value) {
        throw unexpected("addHeaderMapValue");
    }

    @Override
    public void replaceHeaderMapValue(int mapType, String key, String value) {
        throw unexpected("replaceHeaderMapValue");
    }

    @Override
    public void removeHeaderMapValue(int mapType, String key) {
        throw unexpected("removeHeaderMapValue");
    }

    @Override
    public byte[] getProperty(List<String> path) {
        throw unexpected("getProperty");
    }

    @Override
    public void setProperty(List<String> path, byte[] value) {
        throw unexpected("setProperty");
    }

    @Override
    public void continueStream(int streamType) {
        throw unexpected("continueStream");
    }

    @Override
    public void closeStream(int streamType) {
        throw unexpected("closeStream");
    }

    @Override
    public void sendLocalResponse(int statusCode, String details, byte[] body, List<Map.Entry<String, String>> headers,
            int grpcStatus) {
        throw unexpected("sendLocalResponse");
    }

    @Override
    public int httpCall(String cluster, List<Map.Entry<String, String>> headers, byte[] body,
            List<Map.Entry<String, String>> trailers, int timeoutMillis) {
        return 4;
    }

    @Override
    public SharedValue getSharedData(String key) {
        throw unexpected("getSharedData");
    }

    @Override
    public boolean setSharedData(String key, byte[] value, int cas) {
        throw unexpected("setSharedData");
    }

    @Override
    public int defineMetric(int metricType, String name) {
        throw unexpected("defineMetric");
    }

    @Override
    public void incrementMetric(int metricId, long delta) {
        throw unexpected("incrementMetric");
    }

    @Override
    public void recordMetric(int metricId, long value) {
        throw unexpected("recordMetric");
    }

    @Override
    public long getMetric(int metricId) {
        throw unexpected("getMetric");
    }

    @Override
    public void setEffectiveContext(int contextId) {
        effectiveContexts.add(contextId);
        if (effectiveContextStatus != WasmResult.OK) {
            throw new ProxyWasmException("proxy_set_effective_context", effectiveContextStatus);
        }
    }

    @Override
    public void redisInit(String cluster, String username, String password, int timeoutMillis) {
        throw unexpected("redisInit");
    }

    @Override
    public int redisCall(String cluster, byte[] query) {
        redisQueries.add(cluster + " " + new String(query, java.nio.charset.StandardCharsets.UTF_8));
        int token = nextToken;
        nextToken += 4;
        return token;
    }

    @Override
    public byte[] getUpstreamHosts() {
        upstreamHostsCalls++;
        return upstreamHosts.clone();
    }

    @Override
    public void setUpstreamOverrideHost(String address) {
        throw unexpected("setUpstreamOverrideHost");
    }

    private static UnsupportedOperationException unexpected(String call) {
        return new UnsupportedOperationException("FakeAbi does not script " + call);
    }
}
