package io.ailb.proxywasm.internal;

import static io.ailb.proxywasm.bindings.ProxyWasmExports.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.resp.RespValue;
import io.ailb.proxywasm.DataStatus;
import io.ailb.proxywasm.HeaderStatus;
import io.ailb.proxywasm.HttpCall;
import io.ailb.proxywasm.HttpCallCallback;
import io.ailb.proxywasm.HttpCallResponse;
import io.ailb.proxywasm.HttpContext;
import io.ailb.proxywasm.ProxyWasm;
import io.ailb.proxywasm.Redis;
import io.ailb.proxywasm.RedisCallback;
import io.ailb.proxywasm.RedisReply;
import io.ailb.proxywasm.RootContext;
import io.ailb.proxywasm.bindings.BufferType;
import io.ailb.proxywasm.bindings.HeaderAction;
import io.ailb.proxywasm.bindings.LogLevel;
import io.ailb.proxywasm.bindings.MapType;
import io.ailb.proxywasm.bindings.RedisStatus;
import io.ailb.proxywasm.bindings.WasmResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The dispatcher's bookkeeping, driven through the generated export entry points against a fake host. */
class DispatcherTest {
    private static final int ROOT = 1;
    private static final int STREAM = 2;

    private final FakeAbi host = new FakeAbi();
    private final List<String> events = new ArrayList<>();
    private byte[] configured;
    private RuntimeException throwOnRequest;
    private boolean nullStreams;

    @BeforeEach
    void startPlugin() {
        Vm.install(host);
        ProxyWasm.setRootContext(TestRoot::new);
    }

    @Test
    void createsContextsAndReturnsTheStreamsActions() {
        createRootAndStream();

        assertEquals(HeaderAction.STOP_ITERATION, proxyOnRequestHeaders(STREAM, 3, 0));
        assertEquals(DataStatus.STOP_ITERATION_AND_BUFFER.code(), proxyOnRequestBody(STREAM, 10, 0));
        assertEquals(List.of("headers ctx=2 n=3 eos=false", "body ctx=2 size=10 eos=false"), events);
    }

    @Test
    void configureHandsOverThePluginConfigurationAndItsVerdict() {
        proxyOnContextCreate(ROOT, 0);
        host.buffers.put(BufferType.PLUGIN_CONFIGURATION, "{\"a\":1}".getBytes(StandardCharsets.UTF_8));

        assertEquals(1, proxyOnConfigure(ROOT, 7));
        assertEquals("{\"a\":1}", new String(configured, StandardCharsets.UTF_8));
        assertEquals(0, proxyOnConfigure(ROOT, 0), "an empty configuration is rejected by the test plugin");
    }

    @Test
    void anExceptionInAStreamCallbackIsLoggedAndTheStreamContinues() {
        createRootAndStream();
        throwOnRequest = new IllegalStateException("boom", new IllegalArgumentException("root cause"));

        assertEquals(HeaderAction.CONTINUE, proxyOnRequestHeaders(STREAM, 1, 1));
        assertEquals(List.of(LogLevel.ERROR + " proxy_on_request_headers threw java.lang.IllegalStateException: boom;"
                + " caused by java.lang.IllegalArgumentException: root cause"), host.logs);
    }

    @Test
    void anExceptionInConfigureRejectsTheConfiguration() {
        proxyOnContextCreate(ROOT, 0);
        host.buffers.put(BufferType.PLUGIN_CONFIGURATION, "throw".getBytes(StandardCharsets.UTF_8));

        assertEquals(0, proxyOnConfigure(ROOT, 5));
        assertTrue(host.logs.get(0).contains("proxy_on_configure threw"), host.logs.toString());
    }

    @Test
    void aFailingLoggerCannotTrapTheVm() {
        createRootAndStream();
        throwOnRequest = new IllegalStateException("boom");
        host.failLogging = true;

        assertEquals(HeaderAction.CONTINUE, proxyOnRequestHeaders(STREAM, 1, 1));
    }

    @Test
    void unknownContextIdsAreLoggedNotTrappedOn() {
        proxyOnContextCreate(ROOT, 0);

        assertEquals(HeaderAction.CONTINUE, proxyOnRequestHeaders(99, 1, 1));
        proxyOnContextCreate(5, 42);
        proxyOnDelete(77);

        assertEquals(List.of(LogLevel.ERROR + " proxy_on_request_headers: unknown http context 99",
                LogLevel.ERROR + " proxy_on_context_create: unknown parent context 42 for 5",
                LogLevel.ERROR + " proxy_on_delete: unknown context 77"), host.logs);
    }

    @Test
    void aDeletedStreamIsForgotten() {
        createRootAndStream();
        proxyOnLog(STREAM);
        assertEquals(1, proxyOnDone(STREAM));
        proxyOnDelete(STREAM);

        assertEquals(HeaderAction.CONTINUE, proxyOnRequestHeaders(STREAM, 1, 1));
        assertEquals(List.of("log ctx=2", "done ctx=2", "delete ctx=2"), events);
        assertEquals(List.of(LogLevel.ERROR + " proxy_on_request_headers: unknown http context 2"), host.logs);
    }

    @Test
    void aNullHttpContextPassesTheStreamThrough() {
        nullStreams = true;
        createRootAndStream();

        assertEquals(HeaderAction.CONTINUE, proxyOnRequestHeaders(STREAM, 1, 1));
        assertTrue(host.logs.get(0).contains("newHttpContext returned null for 2"), host.logs.toString());
    }

    @Test
    void aFailedAllocationReturnsZero() {
        host.failAllocations = true;

        assertEquals(0, proxyOnMemoryAllocate(16));
        assertTrue(host.logs.get(0).startsWith(LogLevel.ERROR + " proxy_on_memory_allocate(16) threw"));
    }

    @Test
    void aRedisReplyRunsAsTheStreamThatAsked() {
        createRootAndStream();
        List<RedisReply> replies = new ArrayList<>();
        List<Integer> current = new ArrayList<>();
        onRequest = () -> Redis.command("redis-cluster", reply -> {
            replies.add(reply);
            current.add(Vm.dispatcher().currentContextId());
        }, "INCR", "k");
        proxyOnRequestHeaders(STREAM, 1, 1);
        host.buffers.put(BufferType.REDIS_CALL_RESPONSE, ":5\r\n".getBytes(StandardCharsets.US_ASCII));

        proxyOnRedisCallResponse(ROOT, 7, RedisStatus.OK, 4);

        assertEquals(List.of("redis-cluster *2\r\n$4\r\nINCR\r\n$1\r\nk\r\n"), host.redisQueries);
        assertEquals(List.of(STREAM), host.effectiveContexts);
        assertEquals(List.of(STREAM), current);
        assertEquals(RespValue.integer(5), replies.get(0).value());
        assertEquals(7, replies.get(0).token());
    }

    @Test
    void aRedisReplyForAGoneStreamRunsTheOrphanHookOnTheRoot() {
        createRootAndStream();
        List<String> seen = new ArrayList<>();
        onRequest = () -> Redis.command("c", new RedisCallback() {
            @Override
            public void onReply(RedisReply reply) {
                seen.add("reply");
            }

            @Override
            public void onOrphan(RedisReply reply) {
                seen.add("orphan " + reply.value() + " as " + Vm.dispatcher().currentContextId());
            }
        }, "DECR", "k");
        proxyOnRequestHeaders(STREAM, 1, 1);
        proxyOnDelete(STREAM);
        host.buffers.put(BufferType.REDIS_CALL_RESPONSE, ":0\r\n".getBytes(StandardCharsets.US_ASCII));

        proxyOnRedisCallResponse(ROOT, 7, RedisStatus.OK, 4);

        assertEquals(List.of("orphan " + RespValue.integer(0) + " as " + ROOT), seen);
        assertEquals(List.of(), host.effectiveContexts);
    }

    @Test
    void aStreamTheHostNoLongerKnowsGetsTheOrphanHook() {
        createRootAndStream();
        List<String> seen = new ArrayList<>();
        onRequest = () -> Redis.command("c", new RedisCallback() {
            @Override
            public void onReply(RedisReply reply) {
                seen.add("reply");
            }

            @Override
            public void onOrphan(RedisReply reply) {
                seen.add("orphan");
            }
        }, "PING");
        proxyOnRequestHeaders(STREAM, 1, 1);
        host.effectiveContextStatus = WasmResult.BAD_ARGUMENT;
        host.buffers.put(BufferType.REDIS_CALL_RESPONSE, "+PONG\r\n".getBytes(StandardCharsets.US_ASCII));

        proxyOnRedisCallResponse(ROOT, 7, RedisStatus.OK, 7);

        assertEquals(List.of("orphan"), seen);
    }

    @Test
    void aRedisNetworkErrorIsAFailureWithoutReadingTheReplyBuffer() {
        createRootAndStream();
        List<RedisReply> replies = new ArrayList<>();
        onRequest = () -> Redis.command("c", replies::add, "GET", "k");
        proxyOnRequestHeaders(STREAM, 1, 1);

        proxyOnRedisCallResponse(ROOT, 7, RedisStatus.NETWORK_ERROR, 0);

        assertFalse(replies.get(0).hasValue());
        assertNull(replies.get(0).value());
        assertEquals("redis status NETWORK_ERROR", replies.get(0).failure());
        assertFalse(host.bufferReads.contains(BufferType.REDIS_CALL_RESPONSE));
    }

    @Test
    void anUndecodableRedisReplyIsAFailure() {
        createRootAndStream();
        List<RedisReply> replies = new ArrayList<>();
        onRequest = () -> Redis.command("c", replies::add, "GET", "k");
        proxyOnRequestHeaders(STREAM, 1, 1);
        host.buffers.put(BufferType.REDIS_CALL_RESPONSE, "?junk\r\n".getBytes(StandardCharsets.US_ASCII));

        proxyOnRedisCallResponse(ROOT, 7, RedisStatus.OK, 7);

        assertFalse(replies.get(0).hasValue());
        assertTrue(replies.get(0).failure().startsWith("undecodable redis reply"), replies.get(0).failure());
    }

    @Test
    void anUnknownRedisTokenIsLogged() {
        proxyOnContextCreate(ROOT, 0);

        proxyOnRedisCallResponse(ROOT, 11, RedisStatus.OK, 0);

        assertEquals(List.of(LogLevel.ERROR + " proxy_on_redis_call_response: unknown token 11"), host.logs);
    }

    @Test
    void anHttpCallResponseIsReadBeforeSwitchingToTheStreamThatAsked() {
        createRootAndStream();
        List<HttpCallResponse> responses = new ArrayList<>();
        HttpCallCallback callback = responses::add;
        onRequest = () -> HttpCall.dispatch("cluster", List.of(Map.entry(":method", "GET")), new byte[0], List.of(),
                1000, callback);
        proxyOnRequestHeaders(STREAM, 1, 1);
        host.maps.put(MapType.HTTP_CALL_RESPONSE_HEADERS, List.of(Map.entry(":status", "204")));
        host.buffers.put(BufferType.HTTP_CALL_RESPONSE_BODY, "ok".getBytes(StandardCharsets.UTF_8));

        proxyOnHttpCallResponse(ROOT, 4, 1, 2, 0);

        HttpCallResponse response = responses.get(0);
        assertFalse(response.isFailure());
        assertEquals(204, response.status());
        assertEquals("ok", new String(response.body(), StandardCharsets.UTF_8));
        assertEquals(List.of(STREAM), host.effectiveContexts);
    }

    @Test
    void aFailedHttpCallHasNoHeaders() {
        createRootAndStream();
        List<HttpCallResponse> responses = new ArrayList<>();
        onRequest = () -> HttpCall.dispatch("cluster", List.of(), new byte[0], List.of(), 1000, responses::add);
        proxyOnRequestHeaders(STREAM, 1, 1);

        proxyOnHttpCallResponse(ROOT, 4, 0, 0, 0);

        assertTrue(responses.get(0).isFailure());
        assertEquals(List.of(), host.bufferReads);
    }

    private Runnable onRequest = () -> { };

    private void createRootAndStream() {
        proxyOnContextCreate(ROOT, 0);
        proxyOnContextCreate(STREAM, ROOT);
    }

    private final class TestRoot extends RootContext {
        TestRoot(int contextId) {
            super(contextId);
        }

        @Override
        public boolean onConfigure(byte[] pluginConfiguration) {
            if (new String(pluginConfiguration, StandardCharsets.UTF_8).equals("throw")) {
                throw new IllegalStateException("bad config");
            }
            configured = pluginConfiguration;
            return pluginConfiguration.length > 0;
        }

        @Override
        public HttpContext newHttpContext(int contextId) {
            return nullStreams ? null : new TestStream(contextId);
        }
    }

    private final class TestStream extends HttpContext {
        TestStream(int contextId) {
            super(contextId);
        }

        @Override
        public HeaderStatus onRequestHeaders(int headerCount, boolean endOfStream) {
            if (throwOnRequest != null) {
                throw throwOnRequest;
            }
            events.add("headers ctx=" + contextId() + " n=" + headerCount + " eos=" + endOfStream);
            onRequest.run();
            return HeaderStatus.STOP_ITERATION;
        }

        @Override
        public DataStatus onRequestBody(int bodySize, boolean endOfStream) {
            events.add("body ctx=" + contextId() + " size=" + bodySize + " eos=" + endOfStream);
            return DataStatus.STOP_ITERATION_AND_BUFFER;
        }

        @Override
        public void onLog() {
            events.add("log ctx=" + contextId());
        }

        @Override
        public void onDone() {
            events.add("done ctx=" + contextId());
        }

        @Override
        public void onDelete() {
            events.add("delete ctx=" + contextId());
        }
    }
}
