package io.ailb.proxywasm.internal;

import static io.ailb.proxywasm.bindings.ProxyWasmExports.*;
import static io.ailb.proxywasm.testkit.FakeStream.headers;
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
import io.ailb.proxywasm.bindings.RedisStatus;
import io.ailb.proxywasm.bindings.WasmResult;
import io.ailb.proxywasm.testkit.FakeHost;
import io.ailb.proxywasm.testkit.FakeStream;
import io.ailb.proxywasm.testkit.HttpAnswer;
import io.ailb.proxywasm.testkit.RedisAnswer;
import io.ailb.proxywasm.testkit.RedisCallout;
import io.ailb.proxywasm.testkit.RedisResponder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The SDK dispatcher's bookkeeping, driven through the generated export entry points by the testkit's fake host (the
 * test lives in abi/testkit because the testkit depends on the SDK). Calls with ids no host would send are made on the
 * exports directly.
 */
class DispatcherTest {
    private static final int ROOT = 1;
    private static final int STREAM = 2;
    private static final String REDIS = "redis-cluster";

    private final FakeHost host = new FakeHost()
            .withPluginConfig("{}")
            .withRedisCluster(REDIS, RedisResponder.always(RedisAnswer.pending()))
            .withManualDelivery();
    private final List<String> events = new ArrayList<>();
    private byte[] configured;
    private RuntimeException throwOnRequest;
    private boolean nullStreams;
    private Runnable onRequest = () -> {};

    @Test
    void createsContextsAndReturnsTheStreamsActions() {
        FakeStream stream = startWithStream();

        assertEquals(
                HeaderAction.STOP_ITERATION, stream.sendRequestHeaders(headers("a", "1", "b", "2", "c", "3"), false));
        assertEquals(DataStatus.STOP_ITERATION_AND_BUFFER.code(), stream.sendRequestBody(new byte[10], false));
        assertEquals(List.of("headers ctx=2 n=3 eos=false", "body ctx=2 size=10 eos=false"), events);
    }

    @Test
    void configureHandsOverThePluginConfigurationAndItsVerdict() {
        host.withPluginConfig("{\"a\":1}");

        assertTrue(host.start(this::plugin));
        assertEquals("{\"a\":1}", new String(configured, StandardCharsets.UTF_8));
        assertFalse(host.configure(""), "an empty configuration is rejected by the test plugin");
    }

    @Test
    void anExceptionInAStreamCallbackIsLoggedAndTheStreamContinues() {
        FakeStream stream = startWithStream();
        throwOnRequest = new IllegalStateException("boom", new IllegalArgumentException("root cause"));

        assertEquals(HeaderAction.CONTINUE, stream.sendRequestHeaders(headers(":path", "/"), true));
        assertEquals(
                List.of("ERROR proxy_on_request_headers threw java.lang.IllegalStateException: boom;"
                        + " caused by java.lang.IllegalArgumentException: root cause"),
                host.logs());
    }

    @Test
    void anExceptionInConfigureRejectsTheConfiguration() {
        host.withPluginConfig("throw");

        assertFalse(host.start(this::plugin));
        assertTrue(
                host.logs().get(0).contains("proxy_on_configure threw"),
                host.logs().toString());
    }

    @Test
    void aFailingLoggerCannotTrapTheVm() {
        FakeStream stream = startWithStream();
        throwOnRequest = new IllegalStateException("boom");
        host.failCalls("proxy_log", WasmResult.INTERNAL_FAILURE);

        assertEquals(HeaderAction.CONTINUE, stream.sendRequestHeaders(headers(":path", "/"), true));
    }

    @Test
    void unknownContextIdsAreLoggedNotTrappedOn() {
        assertTrue(host.start(this::plugin));

        assertEquals(HeaderAction.CONTINUE, proxyOnRequestHeaders(99, 1, 1));
        proxyOnContextCreate(5, 42);
        proxyOnDelete(77);

        assertEquals(
                List.of(
                        "ERROR proxy_on_request_headers: unknown http context 99",
                        "ERROR proxy_on_context_create: unknown parent context 42 for 5",
                        "ERROR proxy_on_delete: unknown context 77"),
                host.logs());
    }

    @Test
    void aDeletedStreamIsForgotten() {
        int stream = startWithStream().contextId();
        proxyOnLog(stream);
        assertEquals(1, proxyOnDone(stream));
        proxyOnDelete(stream);

        assertEquals(HeaderAction.CONTINUE, proxyOnRequestHeaders(stream, 1, 1));
        assertEquals(List.of("log ctx=2", "done ctx=2", "delete ctx=2"), events);
        assertEquals(List.of("ERROR proxy_on_request_headers: unknown http context 2"), host.logs());
    }

    @Test
    void aNullHttpContextPassesTheStreamThrough() {
        nullStreams = true;
        FakeStream stream = startWithStream();

        assertEquals(HeaderAction.CONTINUE, stream.sendRequestHeaders(headers(":path", "/"), true));
        assertTrue(
                host.logs().get(0).contains("newHttpContext returned null for 2"),
                host.logs().toString());
    }

    @Test
    void aFailedAllocationReturnsZero() {
        assertTrue(host.start(this::plugin));
        host.failCalls("proxy_on_memory_allocate", WasmResult.INTERNAL_FAILURE);

        assertEquals(0, proxyOnMemoryAllocate(16));
        assertTrue(
                host.logs().get(0).startsWith("ERROR proxy_on_memory_allocate(16) threw"),
                host.logs().toString());
    }

    @Test
    void aRedisReplyRunsAsTheStreamThatAsked() {
        FakeStream stream = startWithStream();
        List<RedisReply> replies = new ArrayList<>();
        List<Integer> current = new ArrayList<>();
        onRequest = () -> Redis.command(
                REDIS,
                reply -> {
                    replies.add(reply);
                    current.add(Vm.dispatcher().currentContextId());
                },
                "INCR",
                "k");
        stream.sendRequestHeaders(headers(":path", "/"), true);

        onlyRedisCall().deliver(RedisAnswer.raw(":5\r\n".getBytes(StandardCharsets.US_ASCII)));

        assertEquals(List.of(REDIS + " *2\r\n$4\r\nINCR\r\n$1\r\nk\r\n"), redisQueries());
        assertEquals(List.of(STREAM), host.effectiveContexts());
        assertEquals(List.of(STREAM), current);
        assertEquals(RespValue.integer(5), replies.get(0).value());
        assertEquals(7, replies.get(0).token());
    }

    @Test
    void aRedisReplyForAGoneStreamRunsTheOrphanHookOnTheRoot() {
        FakeStream stream = startWithStream();
        List<String> seen = new ArrayList<>();
        onRequest = () -> Redis.command(
                REDIS,
                new RedisCallback() {
                    @Override
                    public void onReply(RedisReply reply) {
                        seen.add("reply");
                    }

                    @Override
                    public void onOrphan(RedisReply reply) {
                        seen.add("orphan " + reply.value() + " as "
                                + Vm.dispatcher().currentContextId());
                    }
                },
                "DECR",
                "k");
        stream.sendRequestHeaders(headers(":path", "/"), true);
        stream.reset();

        onlyRedisCall().deliver(RedisAnswer.reply(RespValue.integer(0)));

        assertEquals(List.of("orphan " + RespValue.integer(0) + " as " + ROOT), seen);
        assertEquals(List.of(), host.effectiveContexts());
    }

    @Test
    void aStreamTheHostNoLongerKnowsGetsTheOrphanHook() {
        FakeStream stream = startWithStream();
        List<String> seen = new ArrayList<>();
        onRequest = () -> Redis.command(
                REDIS,
                new RedisCallback() {
                    @Override
                    public void onReply(RedisReply reply) {
                        seen.add("reply");
                    }

                    @Override
                    public void onOrphan(RedisReply reply) {
                        seen.add("orphan");
                    }
                },
                "PING");
        stream.sendRequestHeaders(headers(":path", "/"), true);
        host.failCalls("proxy_set_effective_context", WasmResult.BAD_ARGUMENT);

        onlyRedisCall().deliver(RedisAnswer.reply(RespValue.simpleString("PONG")));

        assertEquals(List.of("orphan"), seen);
    }

    @Test
    void aRedisNetworkErrorIsAFailureWithoutReadingTheReplyBuffer() {
        FakeStream stream = startWithStream();
        List<RedisReply> replies = new ArrayList<>();
        onRequest = () -> Redis.command(REDIS, replies::add, "GET", "k");
        stream.sendRequestHeaders(headers(":path", "/"), true);

        onlyRedisCall().deliver(RedisAnswer.networkError());

        assertFalse(replies.get(0).hasValue());
        assertNull(replies.get(0).value());
        assertEquals("redis status NETWORK_ERROR", replies.get(0).failure());
        assertEquals(RedisStatus.NETWORK_ERROR, replies.get(0).status());
        assertFalse(host.bufferReads().contains(BufferType.REDIS_CALL_RESPONSE));
    }

    @Test
    void anUndecodableRedisReplyIsAFailure() {
        FakeStream stream = startWithStream();
        List<RedisReply> replies = new ArrayList<>();
        onRequest = () -> Redis.command(REDIS, replies::add, "GET", "k");
        stream.sendRequestHeaders(headers(":path", "/"), true);

        onlyRedisCall().deliver(RedisAnswer.raw("?junk\r\n".getBytes(StandardCharsets.US_ASCII)));

        assertFalse(replies.get(0).hasValue());
        assertTrue(
                replies.get(0).failure().startsWith("undecodable redis reply"),
                replies.get(0).failure());
    }

    @Test
    void anUnknownRedisTokenIsLogged() {
        assertTrue(host.start(this::plugin));

        proxyOnRedisCallResponse(ROOT, 11, RedisStatus.OK, 0);

        assertEquals(List.of("ERROR proxy_on_redis_call_response: unknown token 11"), host.logs());
    }

    @Test
    void anHttpCallResponseIsReadBeforeSwitchingToTheStreamThatAsked() {
        FakeStream stream = startWithStream();
        List<HttpCallResponse> responses = new ArrayList<>();
        HttpCallCallback callback = responses::add;
        onRequest = () -> HttpCall.dispatch(
                "cluster",
                headers(":method", "GET", ":path", "/", ":authority", "x"),
                new byte[0],
                List.of(),
                1000,
                callback);
        stream.sendRequestHeaders(headers(":path", "/"), true);

        host.httpCallouts().get(0).deliver(HttpAnswer.status(204).withBody("ok"));

        HttpCallResponse response = responses.get(0);
        assertFalse(response.isFailure());
        assertEquals(204, response.status());
        assertEquals("ok", new String(response.body(), StandardCharsets.UTF_8));
        assertEquals(4, response.callId());
        assertEquals(List.of(STREAM), host.effectiveContexts());
    }

    @Test
    void aFailedHttpCallHasNoHeaders() {
        FakeStream stream = startWithStream();
        List<HttpCallResponse> responses = new ArrayList<>();
        onRequest = () -> HttpCall.dispatch(
                "cluster",
                headers(":method", "GET", ":path", "/", ":authority", "x"),
                new byte[0],
                List.of(),
                1000,
                responses::add);
        stream.sendRequestHeaders(headers(":path", "/"), true);
        List<Integer> readsBefore = host.bufferReads();

        host.httpCallouts().get(0).deliver(HttpAnswer.failure());

        assertTrue(responses.get(0).isFailure());
        assertEquals(readsBefore, host.bufferReads(), "nothing to read for a failed call");
    }

    private void plugin(String[] args) {
        ProxyWasm.setRootContext(TestRoot::new);
    }

    private FakeStream startWithStream() {
        assertTrue(host.start(this::plugin));
        FakeStream stream = host.newStream();
        assertEquals(ROOT, host.rootContextId());
        assertEquals(STREAM, stream.contextId());
        return stream;
    }

    private RedisCallout onlyRedisCall() {
        assertEquals(1, host.redisCallouts().size(), host.redisCallouts().toString());
        return host.redisCallouts().get(0);
    }

    private List<String> redisQueries() {
        List<String> queries = new ArrayList<>();
        for (RedisCallout call : host.redisCallouts()) {
            queries.add(call.cluster() + " " + new String(call.query(), StandardCharsets.UTF_8));
        }
        return queries;
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
            Redis.init(REDIS, "", "", 1000);
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
