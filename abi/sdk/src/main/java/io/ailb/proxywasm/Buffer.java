package io.ailb.proxywasm;

import io.ailb.proxywasm.bindings.BufferType;
import io.ailb.proxywasm.internal.Vm;

/**
 * A host buffer: the current stream's bodies, the configurations, or a callout's response. Each is readable only
 * while the host offers it (configuration during configure, a body during its callback, a callout response during
 * its callback).
 */
public final class Buffer {
    private static final Buffer REQUEST_BODY = new Buffer(BufferType.HTTP_REQUEST_BODY);
    private static final Buffer RESPONSE_BODY = new Buffer(BufferType.HTTP_RESPONSE_BODY);
    private static final Buffer HTTP_CALL_RESPONSE_BODY = new Buffer(BufferType.HTTP_CALL_RESPONSE_BODY);
    private static final Buffer VM_CONFIGURATION = new Buffer(BufferType.VM_CONFIGURATION);
    private static final Buffer PLUGIN_CONFIGURATION = new Buffer(BufferType.PLUGIN_CONFIGURATION);
    private static final Buffer REDIS_CALL_RESPONSE = new Buffer(BufferType.REDIS_CALL_RESPONSE);

    private final int bufferType;

    private Buffer(int bufferType) {
        this.bufferType = bufferType;
    }

    public static Buffer requestBody() {
        return REQUEST_BODY;
    }

    public static Buffer responseBody() {
        return RESPONSE_BODY;
    }

    public static Buffer httpCallResponseBody() {
        return HTTP_CALL_RESPONSE_BODY;
    }

    public static Buffer vmConfiguration() {
        return VM_CONFIGURATION;
    }

    public static Buffer pluginConfiguration() {
        return PLUGIN_CONFIGURATION;
    }

    /** Higress buffer 9; the SDK already decodes it for {@link RedisCallback}. */
    public static Buffer redisCallResponse() {
        return REDIS_CALL_RESPONSE;
    }

    /** The {@link BufferType} code. */
    public int bufferType() {
        return bufferType;
    }

    /** Up to {@code maxSize} bytes from {@code start}; empty when the host has no such buffer now. */
    public byte[] get(int start, int maxSize) {
        return Vm.abi().getBuffer(bufferType, start, maxSize);
    }

    /** Replaces {@code size} bytes at {@code start} with {@code data}. */
    public void set(int start, int size, byte[] data) {
        Vm.abi().setBuffer(bufferType, start, size, data);
    }

    /** Replaces the whole content. */
    public void replace(byte[] data) {
        set(0, Integer.MAX_VALUE, data);
    }
}
