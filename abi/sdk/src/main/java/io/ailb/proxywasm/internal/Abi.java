package io.ailb.proxywasm.internal;

import io.ailb.proxywasm.SharedValue;
import java.util.List;
import java.util.Map;

/**
 * The proxy-wasm boundary as Java sees it: the guest half of the memory protocol plus every host call the SDK uses,
 * in Java types. {@link WasmAbi} is the real one (TeaVM imports and linear memory); JVM tests install a fake through
 * {@link Vm#install} (abi/testkit's {@code FakeHost} does).
 *
 * <p>Status convention: OK returns the value; a status that means "absent" for that call (NOT_FOUND, or CAS_MISMATCH
 * for a CAS write) returns {@code null}/{@code false}/an empty result as documented; every other status throws
 * {@link io.ailb.proxywasm.ProxyWasmException} naming the call.
 */
public interface Abi {

    /** {@code proxy_on_memory_allocate}: a fresh buffer the host is about to fill; returns its address. */
    int allocate(int size);

    void log(int level, String message);

    int logLevel();

    void setTickPeriod(int millis);

    /** Bytes {@code [start, start+maxSize)} of a buffer (clamped by the host); empty when the host has no such buffer. */
    byte[] getBuffer(int bufferType, int start, int maxSize);

    void setBuffer(int bufferType, int start, int size, byte[] data);

    /** {@code null} when the map has no such key. */
    String getHeaderMapValue(int mapType, String key);

    List<Map.Entry<String, String>> getHeaderMapPairs(int mapType);

    void setHeaderMapPairs(int mapType, List<Map.Entry<String, String>> pairs);

    void addHeaderMapValue(int mapType, String key, String value);

    void replaceHeaderMapValue(int mapType, String key, String value);

    void removeHeaderMapValue(int mapType, String key);

    /** {@code null} when the property does not exist. */
    byte[] getProperty(List<String> path);

    void setProperty(List<String> path, byte[] value);

    void continueStream(int streamType);

    void closeStream(int streamType);

    void sendLocalResponse(
            int statusCode, String details, byte[] body, List<Map.Entry<String, String>> headers, int grpcStatus);

    /** Returns the call id the host assigned. */
    int httpCall(
            String cluster,
            List<Map.Entry<String, String>> headers,
            byte[] body,
            List<Map.Entry<String, String>> trailers,
            int timeoutMillis);

    /** {@code null} when the key does not exist. */
    SharedValue getSharedData(String key);

    /** {@code false} on CAS_MISMATCH. */
    boolean setSharedData(String key, byte[] value, int cas);

    int defineMetric(int metricType, String name);

    void incrementMetric(int metricId, long delta);

    void recordMetric(int metricId, long value);

    long getMetric(int metricId);

    void setEffectiveContext(int contextId);

    void redisInit(String cluster, String username, String password, int timeoutMillis);

    /** Sends raw RESP bytes; returns the token the reply will carry. */
    int redisCall(String cluster, byte[] query);

    /** The serialized (address, info JSON) map in the host's order; empty when the host has none. */
    byte[] getUpstreamHosts();

    void setUpstreamOverrideHost(String address);
}
