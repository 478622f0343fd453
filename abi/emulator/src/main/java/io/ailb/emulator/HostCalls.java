package io.ailb.emulator;

import com.dylibso.chicory.runtime.HostFunction;
import io.ailb.codec.map.ProxyMapException;
import io.ailb.emulator.bindings.BufferType;
import io.ailb.emulator.bindings.HostImports;
import io.ailb.emulator.bindings.LogLevel;
import io.ailb.emulator.bindings.MapType;
import io.ailb.emulator.bindings.MetricType;
import io.ailb.emulator.bindings.StreamType;
import io.ailb.emulator.bindings.WasmResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code env} host functions of one VM, with Envoy's (Higress fork's) semantics: each reads its arguments from
 * {@link GuestMemory} and acts on the part of the {@link PluginVm} it concerns.
 */
final class HostCalls implements HostImports {
    private static final String ALLOWED_DURING_START = "proxy_log";

    private final PluginVm vm;

    HostCalls(PluginVm vm) {
        this.vm = vm;
    }

    /**
     * Wraps a generated host function: bad pointers become {@code INVALID_MEMORY_ACCESS}, and during {@code _start}
     * only {@code proxy_log} may be called (Envoy's restricted callback list), anything else kills the VM.
     */
    HostFunction guard(HostFunction function) {
        String name = function.name();
        return new HostFunction(function.module(), name, function.functionType(), (instance, args) -> {
            if (vm.runtime().isStarting() && !ALLOWED_DURING_START.equals(name)) {
                throw new EmulatorException(
                        name + " is not allowed during _start (Envoy allows only proxy_log and WASI)");
            }
            try {
                return function.handle().apply(instance, args);
            } catch (GuestMemory.InvalidMemory e) {
                return new long[] {WasmResult.INVALID_MEMORY_ACCESS};
            }
        });
    }

    // ---- memory --------------------------------------------------------------------------------------------------

    private GuestMemory memory() {
        return vm.runtime().memory();
    }

    private byte[] bytes(int pointer, int size) {
        return memory().bytes(pointer, size);
    }

    private String text(int pointer, int size) {
        return memory().text(pointer, size);
    }

    private void writeI32(int pointer, int value) {
        memory().writeI32(pointer, value);
    }

    private int writeOut(byte[] data, int pointerOut, int sizeOut) {
        return memory().writeOut(data, pointerOut, sizeOut);
    }

    private static EmulatorException unimplemented(String name) {
        return new EmulatorException(name + " is not implemented by the emulator");
    }

    // ---- logging, time, ticks ------------------------------------------------------------------------------------

    @Override
    public int proxyLog(int level, int messageData, int messageSize) {
        vm.log().add(level, text(messageData, messageSize));
        return WasmResult.OK;
    }

    @Override
    public int proxyGetLogLevel(int returnLevel) {
        writeI32(returnLevel, LogLevel.TRACE);
        return WasmResult.OK;
    }

    @Override
    public int proxyGetCurrentTimeNanoseconds(int returnTime) {
        java.time.Instant now = vm.gateway().clock().instant();
        memory().writeI64(returnTime, now.getEpochSecond() * 1_000_000_000L + now.getNano());
        return WasmResult.OK;
    }

    @Override
    public int proxySetTickPeriodMilliseconds(int tickPeriod) {
        vm.ticks().setPeriod(tickPeriod);
        return WasmResult.OK;
    }

    // ---- buffers -------------------------------------------------------------------------------------------------

    private byte[] buffer(int bufferType) {
        HttpStream stream = vm.contexts().currentStream();
        return switch (bufferType) {
            case BufferType.HTTP_REQUEST_BODY -> stream == null ? null : stream.body(true);
            case BufferType.HTTP_RESPONSE_BODY -> stream == null ? null : stream.body(false);
            case BufferType.HTTP_CALL_RESPONSE_BODY -> {
                HttpCallAnswer response = vm.httpCalls().responseInDelivery();
                yield response == null ? null : response.body();
            }
            case BufferType.VM_CONFIGURATION -> vm.vmConfiguration();
            case BufferType.PLUGIN_CONFIGURATION -> vm.pluginConfiguration();
            case BufferType.REDIS_CALL_RESPONSE -> vm.redis().replyInDelivery();
            default -> null;
        };
    }

    @Override
    public int proxyGetBufferBytes(int bufferType, int start, int maxSize, int returnData, int returnSize) {
        byte[] buffer = buffer(bufferType);
        if (buffer == null) {
            return WasmResult.NOT_FOUND;
        }
        if (start < 0 || maxSize < 0) {
            return WasmResult.BAD_ARGUMENT;
        }
        // "Don't overread": the host clamps the range to the buffer.
        int from = Math.min(start, buffer.length);
        int length = (int) Math.min((long) maxSize, buffer.length - from);
        byte[] slice = new byte[length];
        System.arraycopy(buffer, from, slice, 0, length);
        return writeOut(slice, returnData, returnSize);
    }

    @Override
    public int proxyGetBufferStatus(int bufferType, int returnSize, int returnFlags) {
        byte[] buffer = buffer(bufferType);
        if (buffer == null) {
            return WasmResult.NOT_FOUND;
        }
        writeI32(returnSize, buffer.length);
        writeI32(returnFlags, 0);
        return WasmResult.OK;
    }

    @Override
    public int proxySetBufferBytes(int bufferType, int start, int size, int valueData, int valueSize) {
        if (bufferType != BufferType.HTTP_REQUEST_BODY && bufferType != BufferType.HTTP_RESPONSE_BODY) {
            return buffer(bufferType) == null ? WasmResult.NOT_FOUND : WasmResult.BAD_ARGUMENT;
        }
        HttpStream stream = vm.contexts().currentStream();
        if (stream == null) {
            return WasmResult.NOT_FOUND;
        }
        boolean request = bufferType == BufferType.HTTP_REQUEST_BODY;
        byte[] body = stream.body(request);
        if (start < 0 || start > body.length || size < 0) {
            return WasmResult.BAD_ARGUMENT;
        }
        byte[] value = bytes(valueData, valueSize);
        int end = (int) Math.min((long) start + size, body.length);
        byte[] spliced = new byte[start + value.length + (body.length - end)];
        System.arraycopy(body, 0, spliced, 0, start);
        System.arraycopy(value, 0, spliced, start, value.length);
        System.arraycopy(body, end, spliced, start + value.length, body.length - end);
        stream.replaceBody(request, spliced);
        return WasmResult.OK;
    }

    // ---- header maps ---------------------------------------------------------------------------------------------

    private HeaderMap map(int mapType) {
        if (mapType == MapType.HTTP_CALL_RESPONSE_HEADERS || mapType == MapType.HTTP_CALL_RESPONSE_TRAILERS) {
            HttpCallAnswer response = vm.httpCalls().responseInDelivery();
            if (response == null) {
                return null;
            }
            return mapType == MapType.HTTP_CALL_RESPONSE_HEADERS ? response.headers() : response.trailers();
        }
        HttpStream stream = vm.contexts().currentStream();
        return stream == null ? null : stream.map(mapType);
    }

    /** The map if the current context may change it, else null (the caller answers BAD_ARGUMENT or NOT_FOUND). */
    private HeaderMap writableMap(int mapType) {
        HttpStream stream = vm.contexts().currentStream();
        return stream != null && stream.writable(mapType) ? stream.map(mapType) : null;
    }

    private int mapWriteStatus(int mapType) {
        return map(mapType) == null ? WasmResult.NOT_FOUND : WasmResult.BAD_ARGUMENT;
    }

    @Override
    public int proxyGetHeaderMapPairs(int mapType, int returnData, int returnSize) {
        HeaderMap map = map(mapType);
        if (map == null) {
            return WasmResult.NOT_FOUND;
        }
        return writeOut(map.encode(), returnData, returnSize);
    }

    @Override
    public int proxySetHeaderMapPairs(int mapType, int mapData, int mapSize) {
        HeaderMap map = writableMap(mapType);
        if (map == null) {
            return mapWriteStatus(mapType);
        }
        try {
            map.setAll(HeaderMap.decode(bytes(mapData, mapSize)));
        } catch (ProxyMapException e) {
            return WasmResult.SERIALIZATION_FAILURE;
        }
        return WasmResult.OK;
    }

    @Override
    public int proxyGetHeaderMapSize(int mapType, int returnSize) {
        HeaderMap map = map(mapType);
        if (map == null) {
            return WasmResult.NOT_FOUND;
        }
        writeI32(returnSize, map.encode().length);
        return WasmResult.OK;
    }

    @Override
    public int proxyGetHeaderMapValue(int mapType, int keyData, int keySize, int returnValueData, int returnValueSize) {
        HeaderMap map = map(mapType);
        if (map == null) {
            return WasmResult.NOT_FOUND;
        }
        Optional<String> value = map.get(text(keyData, keySize));
        if (value.isEmpty()) {
            return WasmResult.NOT_FOUND;
        }
        return writeOut(value.get().getBytes(StandardCharsets.UTF_8), returnValueData, returnValueSize);
    }

    @Override
    public int proxyReplaceHeaderMapValue(int mapType, int keyData, int keySize, int valueData, int valueSize) {
        HeaderMap map = writableMap(mapType);
        if (map == null) {
            return mapWriteStatus(mapType);
        }
        map.replace(text(keyData, keySize), text(valueData, valueSize));
        return WasmResult.OK;
    }

    @Override
    public int proxyRemoveHeaderMapValue(int mapType, int keyData, int keySize) {
        HeaderMap map = writableMap(mapType);
        if (map == null) {
            return mapWriteStatus(mapType);
        }
        map.remove(text(keyData, keySize));
        return WasmResult.OK;
    }

    @Override
    public int proxyAddHeaderMapValue(int mapType, int keyData, int keySize, int valueData, int valueSize) {
        HeaderMap map = writableMap(mapType);
        if (map == null) {
            return mapWriteStatus(mapType);
        }
        map.add(text(keyData, keySize), text(valueData, valueSize));
        return WasmResult.OK;
    }

    // ---- properties ----------------------------------------------------------------------------------------------

    @Override
    public int proxyGetProperty(int pathData, int pathSize, int returnValueData, int returnValueSize) {
        String key = text(pathData, pathSize);
        HttpStream stream = vm.contexts().currentStream();
        byte[] value = stream != null
                ? stream.findProperty(key)
                : vm.contexts().rootProperties().get(key);
        if (value == null && stream == null) {
            value = vm.gateway().defaultProperty(key);
        }
        if (value == null) {
            return WasmResult.NOT_FOUND;
        }
        return writeOut(value, returnValueData, returnValueSize);
    }

    @Override
    public int proxySetProperty(int pathData, int pathSize, int valueData, int valueSize) {
        String key = text(pathData, pathSize);
        byte[] value = bytes(valueData, valueSize);
        HttpStream stream = vm.contexts().currentStream();
        if (stream != null) {
            stream.setProperty(key, value);
        } else {
            vm.contexts().rootProperties().put(key, value);
        }
        return WasmResult.OK;
    }

    // ---- stream control ------------------------------------------------------------------------------------------

    @Override
    public int proxySendLocalResponse(
            int statusCode,
            int statusCodeDetailsData,
            int statusCodeDetailsSize,
            int bodyData,
            int bodySize,
            int headersData,
            int headersSize,
            int grpcStatus) {
        HttpStream stream = vm.contexts().currentStream();
        if (stream == null) {
            return WasmResult.NOT_FOUND;
        }
        HeaderMap headers;
        try {
            headers = HeaderMap.decode(bytes(headersData, headersSize));
        } catch (ProxyMapException e) {
            return WasmResult.SERIALIZATION_FAILURE;
        }
        stream.requestLocalReply(new LocalReply(
                statusCode,
                text(statusCodeDetailsData, statusCodeDetailsSize),
                bytes(bodyData, bodySize),
                headers,
                grpcStatus));
        return WasmResult.OK;
    }

    @Override
    public int proxyContinueStream(int streamType) {
        HttpStream stream = vm.contexts().currentStream();
        if (stream == null) {
            return WasmResult.NOT_FOUND;
        }
        if (streamType != StreamType.HTTP_REQUEST && streamType != StreamType.HTTP_RESPONSE) {
            return WasmResult.BAD_ARGUMENT;
        }
        stream.requestContinue(streamType == StreamType.HTTP_REQUEST);
        return WasmResult.OK;
    }

    @Override
    public int proxyCloseStream(int streamType) {
        HttpStream stream = vm.contexts().currentStream();
        if (stream == null) {
            return WasmResult.NOT_FOUND;
        }
        stream.requestClose();
        return WasmResult.OK;
    }

    @Override
    public int proxySetEffectiveContext(int contextId) {
        return vm.contexts().setEffectiveContext(contextId);
    }

    @Override
    public int proxyDone() {
        return WasmResult.OK;
    }

    // ---- HTTP calls ----------------------------------------------------------------------------------------------

    @Override
    public int proxyHttpCall(
            int upstreamData,
            int upstreamSize,
            int headersData,
            int headersSize,
            int bodyData,
            int bodySize,
            int trailersData,
            int trailersSize,
            int timeoutMilliseconds,
            int returnCallId) {
        HeaderMap headers;
        HeaderMap trailers;
        try {
            headers = HeaderMap.decode(bytes(headersData, headersSize));
            trailers = HeaderMap.decode(bytes(trailersData, trailersSize));
        } catch (ProxyMapException e) {
            return WasmResult.SERIALIZATION_FAILURE;
        }
        for (String required : List.of(":method", ":path", ":authority")) {
            if (headers.get(required).isEmpty()) {
                return WasmResult.BAD_ARGUMENT;
            }
        }
        int callId = vm.httpCalls()
                .call(
                        text(upstreamData, upstreamSize),
                        headers,
                        bytes(bodyData, bodySize),
                        trailers,
                        timeoutMilliseconds);
        writeI32(returnCallId, callId);
        return WasmResult.OK;
    }

    // ---- shared data ---------------------------------------------------------------------------------------------

    @Override
    public int proxySetSharedData(int keyData, int keySize, int valueData, int valueSize, int cas) {
        return vm.gateway().sharedData().set(text(keyData, keySize), bytes(valueData, valueSize), cas);
    }

    @Override
    public int proxyGetSharedData(int keyData, int keySize, int returnValueData, int returnValueSize, int returnCas) {
        Optional<SharedDataStore.Entry> entry = vm.gateway().sharedData().get(text(keyData, keySize));
        if (entry.isEmpty()) {
            return WasmResult.NOT_FOUND;
        }
        int status = writeOut(entry.get().value(), returnValueData, returnValueSize);
        if (status == WasmResult.OK) {
            writeI32(returnCas, entry.get().cas());
        }
        return status;
    }

    // ---- metrics -------------------------------------------------------------------------------------------------

    @Override
    public int proxyDefineMetric(int metricType, int nameData, int nameSize, int returnMetricId) {
        if (metricType < MetricType.COUNTER || metricType > MetricType.HISTOGRAM) {
            return WasmResult.BAD_ARGUMENT;
        }
        writeI32(returnMetricId, vm.metricHandles().define(metricType, text(nameData, nameSize)));
        return WasmResult.OK;
    }

    @Override
    public int proxyIncrementMetric(int metricId, long delta) {
        return vm.metricHandles().increment(metricId, delta);
    }

    @Override
    public int proxyRecordMetric(int metricId, long value) {
        return vm.metricHandles().record(metricId, value);
    }

    @Override
    public int proxyGetMetric(int metricId, int returnValue) {
        if (!vm.metricHandles().isDefined(metricId)) {
            return WasmResult.NOT_FOUND;
        }
        Optional<Long> value = vm.metricHandles().read(metricId);
        if (value.isEmpty()) {
            return WasmResult.BAD_ARGUMENT;
        }
        memory().writeI64(returnValue, value.get());
        return WasmResult.OK;
    }

    // ---- Higress extensions --------------------------------------------------------------------------------------

    @Override
    public int proxyRedisInit(
            int clusterData,
            int clusterSize,
            int usernameData,
            int usernameSize,
            int passwordData,
            int passwordSize,
            int timeoutMilliseconds) {
        return vm.redis()
                .init(
                        text(clusterData, clusterSize),
                        text(usernameData, usernameSize),
                        text(passwordData, passwordSize),
                        timeoutMilliseconds);
    }

    @Override
    public int proxyRedisCall(int clusterData, int clusterSize, int queryData, int querySize, int returnToken) {
        String cluster = text(clusterData, clusterSize);
        byte[] query = bytes(queryData, querySize);
        memory().check(returnToken, 4);
        int token = vm.redis().call(cluster, query);
        if (token < 0) {
            return -token;
        }
        writeI32(returnToken, token);
        return WasmResult.OK;
    }

    @Override
    public int proxyGetUpstreamHosts(int returnData, int returnSize) {
        HttpStream stream = vm.contexts().currentStream();
        List<ClusterHost> hosts = stream == null ? List.of() : stream.upstreamHosts();
        if (hosts.isEmpty()) {
            writeI32(returnData, 0);
            writeI32(returnSize, 0);
            return WasmResult.OK;
        }
        List<Map.Entry<String, String>> pairs = new ArrayList<>();
        for (ClusterHost host : hosts) {
            pairs.add(Map.entry(host.address(), host.infoJson()));
        }
        return writeOut(HeaderMap.copyOf(pairs).encode(), returnData, returnSize);
    }

    @Override
    public int proxySetUpstreamOverrideHost(int addressData, int addressSize) {
        HttpStream stream = vm.contexts().currentStream();
        if (stream == null) {
            return WasmResult.BAD_ARGUMENT;
        }
        stream.overrideUpstream(text(addressData, addressSize));
        return WasmResult.OK;
    }

    @Override
    public int proxyInjectEncodedDataToFilterChain(int bodyData, int bodySize, int endOfStream) {
        throw unimplemented("proxy_inject_encoded_data_to_filter_chain");
    }

    // ---- not emulated: loud, so a filter that needs them is noticed ------------------------------------------------

    @Override
    public int proxyGrpcCall(
            int upstreamData,
            int upstreamSize,
            int serviceNameData,
            int serviceNameSize,
            int methodNameData,
            int methodNameSize,
            int initialMetadataData,
            int initialMetadataSize,
            int messageData,
            int messageSize,
            int timeoutMilliseconds,
            int returnCallId) {
        throw unimplemented("proxy_grpc_call");
    }

    @Override
    public int proxyGrpcStream(
            int upstreamData,
            int upstreamSize,
            int serviceNameData,
            int serviceNameSize,
            int methodNameData,
            int methodNameSize,
            int initialMetadataData,
            int initialMetadataSize,
            int returnStreamId) {
        throw unimplemented("proxy_grpc_stream");
    }

    @Override
    public int proxyGrpcSend(int streamId, int messageData, int messageSize, int endOfStream) {
        throw unimplemented("proxy_grpc_send");
    }

    @Override
    public int proxyGrpcCancel(int callOrStreamId) {
        throw unimplemented("proxy_grpc_cancel");
    }

    @Override
    public int proxyGrpcClose(int callOrStreamId) {
        throw unimplemented("proxy_grpc_close");
    }

    @Override
    public int proxyGetStatus(int returnStatusCode, int returnMessageData, int returnMessageSize) {
        throw unimplemented("proxy_get_status");
    }

    @Override
    public int proxyRegisterSharedQueue(int nameData, int nameSize, int returnQueueId) {
        throw unimplemented("proxy_register_shared_queue");
    }

    @Override
    public int proxyResolveSharedQueue(int vmIdData, int vmIdSize, int nameData, int nameSize, int returnQueueId) {
        throw unimplemented("proxy_resolve_shared_queue");
    }

    @Override
    public int proxyEnqueueSharedQueue(int queueId, int valueData, int valueSize) {
        throw unimplemented("proxy_enqueue_shared_queue");
    }

    @Override
    public int proxyDequeueSharedQueue(int queueId, int returnValueData, int returnValueSize) {
        throw unimplemented("proxy_dequeue_shared_queue");
    }

    @Override
    public int proxyCallForeignFunction(
            int nameData,
            int nameSize,
            int argumentsData,
            int argumentsSize,
            int returnResultsData,
            int returnResultsSize) {
        throw unimplemented("proxy_call_foreign_function");
    }
}
