package io.ailb.proxywasm.internal;

import io.ailb.codec.resp.RespDecoder;
import io.ailb.codec.resp.RespException;
import io.ailb.proxywasm.HttpCallCallback;
import io.ailb.proxywasm.HttpCallResponse;
import io.ailb.proxywasm.HttpContext;
import io.ailb.proxywasm.ProxyWasmException;
import io.ailb.proxywasm.RedisCallback;
import io.ailb.proxywasm.RedisReply;
import io.ailb.proxywasm.RootContext;
import io.ailb.proxywasm.RootContextFactory;
import io.ailb.proxywasm.bindings.BufferType;
import io.ailb.proxywasm.bindings.DataAction;
import io.ailb.proxywasm.bindings.GuestCallbacks;
import io.ailb.proxywasm.bindings.HeaderAction;
import io.ailb.proxywasm.bindings.LogLevel;
import io.ailb.proxywasm.bindings.MapType;
import io.ailb.proxywasm.bindings.RedisStatus;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns the raw exports into calls on the plugin's contexts. It alone maps context ids to objects (root contexts,
 * and HTTP streams, each created by its parent root) and callout tokens to the context that made the call.
 *
 * <p>Every export catches {@link Throwable}: an uncaught exception would trap the VM and kill every stream on it. The
 * exception is logged at ERROR and the fail-safe value returned (CONTINUE; false from configure and VM start; 0 from
 * allocate). An unknown context id is logged at ERROR, never trapped on.
 */
public final class Dispatcher implements GuestCallbacks {
    private static final int CAUSES_LOGGED = 4;
    private static final byte[] EMPTY = new byte[0];

    private final Abi abi;
    private final RootContextFactory factory;
    private final Map<Integer, RootContext> roots = new HashMap<>();
    private final Map<Integer, HttpContext> streams = new HashMap<>();
    private final Map<Integer, Callout<RedisCallback>> redisCalls = new HashMap<>();
    private final Map<Integer, Callout<HttpCallCallback>> httpCalls = new HashMap<>();
    /** The context whose callback runs now: callouts started from it are routed back to it. */
    private int currentContextId;

    Dispatcher(Abi abi, RootContextFactory factory) {
        this.abi = abi;
        this.factory = factory;
    }

    public int currentContextId() {
        return currentContextId;
    }

    /** Called by {@code Redis.call} right after the host accepted the command. */
    public void expectRedisReply(int token, RedisCallback callback) {
        redisCalls.put(token, new Callout<>(currentContextId, callback));
    }

    /** Called by {@code HttpCall.dispatch} right after the host accepted the request. */
    public void expectHttpResponse(int callId, HttpCallCallback callback) {
        httpCalls.put(callId, new Callout<>(currentContextId, callback));
    }

    // ---- memory and lifecycle

    @Override
    public int proxyOnMemoryAllocate(int memorySize) {
        try {
            return abi.allocate(memorySize);
        } catch (Throwable t) {
            fail("proxy_on_memory_allocate(" + memorySize + ")", t);
            return 0;
        }
    }

    @Override
    public void proxyOnContextCreate(int contextId, int parentContextId) {
        currentContextId = contextId;
        try {
            if (roots.containsKey(contextId) || streams.containsKey(contextId)) {
                error("proxy_on_context_create: context " + contextId + " already exists");
            } else if (parentContextId == 0) {
                RootContext root = factory.create(contextId);
                if (root == null) {
                    error("proxy_on_context_create: the root context factory returned null for " + contextId);
                } else {
                    roots.put(contextId, root);
                }
            } else {
                createStream(contextId, parentContextId);
            }
        } catch (Throwable t) {
            fail("proxy_on_context_create(" + contextId + ", " + parentContextId + ")", t);
        }
    }

    private void createStream(int contextId, int parentContextId) {
        RootContext root = roots.get(parentContextId);
        if (root == null) {
            error("proxy_on_context_create: unknown parent context " + parentContextId + " for " + contextId);
            return;
        }
        HttpContext stream = root.newHttpContext(contextId);
        if (stream == null) {
            error("proxy_on_context_create: newHttpContext returned null for " + contextId + "; passing it through");
            stream = new HttpContext(contextId) {};
        }
        streams.put(contextId, stream);
    }

    @Override
    public int proxyOnVmStart(int pluginContextId, int vmConfigurationSize) {
        RootContext root = root(pluginContextId, "proxy_on_vm_start");
        if (root == null) {
            return 0;
        }
        try {
            return bool(root.onVmStart(readBuffer(BufferType.VM_CONFIGURATION, vmConfigurationSize)));
        } catch (Throwable t) {
            fail("proxy_on_vm_start", t);
            return 0;
        }
    }

    @Override
    public int proxyOnConfigure(int pluginContextId, int pluginConfigurationSize) {
        RootContext root = root(pluginContextId, "proxy_on_configure");
        if (root == null) {
            return 0;
        }
        try {
            return bool(root.onConfigure(readBuffer(BufferType.PLUGIN_CONFIGURATION, pluginConfigurationSize)));
        } catch (Throwable t) {
            fail("proxy_on_configure", t);
            return 0;
        }
    }

    @Override
    public void proxyOnTick(int pluginContextId) {
        RootContext root = root(pluginContextId, "proxy_on_tick");
        if (root == null) {
            return;
        }
        try {
            root.onTick();
        } catch (Throwable t) {
            fail("proxy_on_tick", t);
        }
    }

    @Override
    public void proxyOnQueueReady(int pluginContextId, int queueId) {
        RootContext root = root(pluginContextId, "proxy_on_queue_ready");
        if (root == null) {
            return;
        }
        try {
            root.onQueueReady(queueId);
        } catch (Throwable t) {
            fail("proxy_on_queue_ready", t);
        }
    }

    @Override
    public int proxyOnDone(int contextId) {
        currentContextId = contextId;
        try {
            HttpContext stream = streams.get(contextId);
            if (stream != null) {
                stream.onDone();
                return 1;
            }
            RootContext root = roots.get(contextId);
            if (root != null) {
                return bool(root.onDone());
            }
            error("proxy_on_done: unknown context " + contextId);
        } catch (Throwable t) {
            fail("proxy_on_done", t);
        }
        return 1;
    }

    @Override
    public void proxyOnLog(int contextId) {
        currentContextId = contextId;
        try {
            HttpContext stream = streams.get(contextId);
            if (stream != null) {
                stream.onLog();
            } else if (!roots.containsKey(contextId)) {
                error("proxy_on_log: unknown context " + contextId);
            }
        } catch (Throwable t) {
            fail("proxy_on_log", t);
        }
    }

    @Override
    public void proxyOnDelete(int contextId) {
        currentContextId = contextId;
        try {
            HttpContext stream = streams.remove(contextId);
            if (stream != null) {
                stream.onDelete();
                return;
            }
            RootContext root = roots.remove(contextId);
            if (root != null) {
                root.onDelete();
                return;
            }
            error("proxy_on_delete: unknown context " + contextId);
        } catch (Throwable t) {
            fail("proxy_on_delete", t);
        }
    }

    // ---- HTTP stream

    @Override
    public int proxyOnRequestHeaders(int contextId, int headers, int endOfStream) {
        HttpContext stream = stream(contextId, "proxy_on_request_headers");
        try {
            return stream == null
                    ? HeaderAction.CONTINUE
                    : stream.onRequestHeaders(headers, endOfStream != 0).code();
        } catch (Throwable t) {
            fail("proxy_on_request_headers", t);
            return HeaderAction.CONTINUE;
        }
    }

    @Override
    public int proxyOnRequestBody(int contextId, int bodySize, int endOfStream) {
        HttpContext stream = stream(contextId, "proxy_on_request_body");
        try {
            return stream == null
                    ? DataAction.CONTINUE
                    : stream.onRequestBody(bodySize, endOfStream != 0).code();
        } catch (Throwable t) {
            fail("proxy_on_request_body", t);
            return DataAction.CONTINUE;
        }
    }

    @Override
    public int proxyOnRequestTrailers(int contextId, int trailers) {
        HttpContext stream = stream(contextId, "proxy_on_request_trailers");
        try {
            return stream == null
                    ? HeaderAction.CONTINUE
                    : stream.onRequestTrailers(trailers).code();
        } catch (Throwable t) {
            fail("proxy_on_request_trailers", t);
            return HeaderAction.CONTINUE;
        }
    }

    @Override
    public int proxyOnResponseHeaders(int contextId, int headers, int endOfStream) {
        HttpContext stream = stream(contextId, "proxy_on_response_headers");
        try {
            return stream == null
                    ? HeaderAction.CONTINUE
                    : stream.onResponseHeaders(headers, endOfStream != 0).code();
        } catch (Throwable t) {
            fail("proxy_on_response_headers", t);
            return HeaderAction.CONTINUE;
        }
    }

    @Override
    public int proxyOnResponseBody(int contextId, int bodySize, int endOfStream) {
        HttpContext stream = stream(contextId, "proxy_on_response_body");
        try {
            return stream == null
                    ? DataAction.CONTINUE
                    : stream.onResponseBody(bodySize, endOfStream != 0).code();
        } catch (Throwable t) {
            fail("proxy_on_response_body", t);
            return DataAction.CONTINUE;
        }
    }

    @Override
    public int proxyOnResponseTrailers(int contextId, int trailers) {
        HttpContext stream = stream(contextId, "proxy_on_response_trailers");
        try {
            return stream == null
                    ? HeaderAction.CONTINUE
                    : stream.onResponseTrailers(trailers).code();
        } catch (Throwable t) {
            fail("proxy_on_response_trailers", t);
            return HeaderAction.CONTINUE;
        }
    }

    // ---- callouts

    @Override
    public void proxyOnHttpCallResponse(int pluginContextId, int callId, int headers, int bodySize, int trailers) {
        currentContextId = pluginContextId;
        try {
            Callout<HttpCallCallback> callout = httpCalls.remove(callId);
            if (callout == null) {
                error("proxy_on_http_call_response: unknown call id " + callId);
                return;
            }
            // Read while the host's current context is the one it delivered the response to.
            HttpCallResponse response = new HttpCallResponse(
                    callId,
                    headers > 0 ? abi.getHeaderMapPairs(MapType.HTTP_CALL_RESPONSE_HEADERS) : List.of(),
                    readBuffer(BufferType.HTTP_CALL_RESPONSE_BODY, bodySize),
                    trailers > 0 ? abi.getHeaderMapPairs(MapType.HTTP_CALL_RESPONSE_TRAILERS) : List.of());
            if (enterCaller(pluginContextId, callout.contextId)) {
                callout.callback.onResponse(response);
            } else {
                callout.callback.onOrphan(response);
            }
        } catch (Throwable t) {
            fail("proxy_on_http_call_response(" + callId + ")", t);
        }
    }

    @Override
    public void proxyOnRedisCallResponse(int contextId, int token, int status, int responseSize) {
        currentContextId = contextId;
        try {
            Callout<RedisCallback> callout = redisCalls.remove(token);
            if (callout == null) {
                error("proxy_on_redis_call_response: unknown token " + token);
                return;
            }
            RedisReply reply = readRedisReply(token, status, responseSize);
            if (enterCaller(contextId, callout.contextId)) {
                callout.callback.onReply(reply);
            } else {
                callout.callback.onOrphan(reply);
            }
        } catch (Throwable t) {
            fail("proxy_on_redis_call_response(" + token + ")", t);
        }
    }

    private RedisReply readRedisReply(int token, int status, int responseSize) {
        if (status != RedisStatus.OK) {
            return RedisReply.failed(token, status, "redis status " + RedisStatus.nameOf(status));
        }
        byte[] raw = readBuffer(BufferType.REDIS_CALL_RESPONSE, responseSize);
        try {
            return RedisReply.of(token, RespDecoder.DEFAULT.decodeExactly(raw, 0, raw.length));
        } catch (RespException e) {
            return RedisReply.failed(token, status, "undecodable redis reply: " + e.getMessage());
        }
    }

    /**
     * Makes the calling context current (host and SDK) and returns true; false when it is gone, in which case the
     * root context that received the callout stays current.
     */
    private boolean enterCaller(int rootContextId, int callerContextId) {
        if (!streams.containsKey(callerContextId) && !roots.containsKey(callerContextId)) {
            return false;
        }
        if (callerContextId != rootContextId) {
            try {
                abi.setEffectiveContext(callerContextId);
            } catch (ProxyWasmException e) {
                error("proxy_set_effective_context(" + callerContextId + ") failed: " + e.resultName());
                return false;
            }
        }
        currentContextId = callerContextId;
        return true;
    }

    // ---- unsupported callbacks: this SDK makes no gRPC calls and offers no TCP filters

    @Override
    public int proxyOnNewConnection(int contextId) {
        error("proxy_on_new_connection: TCP filters are not supported by this SDK (context " + contextId + ")");
        return DataAction.CONTINUE;
    }

    @Override
    public int proxyOnDownstreamData(int contextId, int dataSize, int endOfStream) {
        error("proxy_on_downstream_data: TCP filters are not supported by this SDK (context " + contextId + ")");
        return DataAction.CONTINUE;
    }

    @Override
    public int proxyOnUpstreamData(int contextId, int dataSize, int endOfStream) {
        error("proxy_on_upstream_data: TCP filters are not supported by this SDK (context " + contextId + ")");
        return DataAction.CONTINUE;
    }

    @Override
    public void proxyOnDownstreamConnectionClose(int contextId, int peerType) {
        error("proxy_on_downstream_connection_close: TCP filters are not supported (context " + contextId + ")");
    }

    @Override
    public void proxyOnUpstreamConnectionClose(int contextId, int peerType) {
        error("proxy_on_upstream_connection_close: TCP filters are not supported (context " + contextId + ")");
    }

    @Override
    public void proxyOnGrpcReceiveInitialMetadata(int pluginContextId, int callId, int headers) {
        error("proxy_on_grpc_receive_initial_metadata: unknown gRPC call " + callId);
    }

    @Override
    public void proxyOnGrpcReceive(int pluginContextId, int callId, int messageSize) {
        error("proxy_on_grpc_receive: unknown gRPC call " + callId);
    }

    @Override
    public void proxyOnGrpcReceiveTrailingMetadata(int pluginContextId, int callId, int trailers) {
        error("proxy_on_grpc_receive_trailing_metadata: unknown gRPC call " + callId);
    }

    @Override
    public void proxyOnGrpcClose(int pluginContextId, int callId, int statusCode) {
        error("proxy_on_grpc_close: unknown gRPC call " + callId);
    }

    @Override
    public void proxyOnForeignFunction(int pluginContextId, int functionId, int argumentsSize) {
        error("proxy_on_foreign_function: foreign functions are not supported (function " + functionId + ")");
    }

    // ---- helpers

    private RootContext root(int contextId, String callback) {
        currentContextId = contextId;
        RootContext root = roots.get(contextId);
        if (root == null) {
            error(callback + ": unknown root context " + contextId);
        }
        return root;
    }

    private HttpContext stream(int contextId, String callback) {
        currentContextId = contextId;
        HttpContext stream = streams.get(contextId);
        if (stream == null) {
            error(callback + ": unknown http context " + contextId);
        }
        return stream;
    }

    private byte[] readBuffer(int bufferType, int size) {
        return size > 0 ? abi.getBuffer(bufferType, 0, size) : EMPTY;
    }

    private static int bool(boolean value) {
        return value ? 1 : 0;
    }

    private void fail(String where, Throwable thrown) {
        try {
            StringBuilder message = new StringBuilder(where).append(" threw ").append(thrown);
            Throwable cause = thrown.getCause();
            for (int i = 0; cause != null && i < CAUSES_LOGGED; i++, cause = cause.getCause()) {
                message.append("; caused by ").append(cause);
            }
            abi.log(LogLevel.ERROR, message.toString());
        } catch (Throwable ignored) {
            // Nothing left to report to: logging itself failed, and throwing would trap the VM.
        }
    }

    private void error(String message) {
        try {
            abi.log(LogLevel.ERROR, message);
        } catch (Throwable ignored) {
            // As in fail(): a failed log must not trap the VM.
        }
    }

    /** A pending callout: who asked, and what to call back. */
    private static final class Callout<T> {
        final int contextId;
        final T callback;

        Callout(int contextId, T callback) {
            this.contextId = contextId;
            this.callback = callback;
        }
    }
}
