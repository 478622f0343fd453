package io.ailb.proxywasm.testkit;

import static io.ailb.proxywasm.testkit.FakeStream.headers;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.resp.RespValue;
import io.ailb.proxywasm.Buffer;
import io.ailb.proxywasm.Clock;
import io.ailb.proxywasm.DataStatus;
import io.ailb.proxywasm.HeaderStatus;
import io.ailb.proxywasm.Headers;
import io.ailb.proxywasm.HttpCall;
import io.ailb.proxywasm.Log;
import io.ailb.proxywasm.Metric;
import io.ailb.proxywasm.Properties;
import io.ailb.proxywasm.ProxyWasmException;
import io.ailb.proxywasm.Redis;
import io.ailb.proxywasm.RedisReply;
import io.ailb.proxywasm.SharedData;
import io.ailb.proxywasm.Stream;
import io.ailb.proxywasm.Upstreams;
import io.ailb.proxywasm.bindings.DataAction;
import io.ailb.proxywasm.bindings.HeaderAction;
import io.ailb.proxywasm.bindings.WasmResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The fake host keeps Envoy's order of callbacks and its rules for what a guest may do when. */
class FakeHostTest {
    private static final String REDIS = "outbound|6379||redis.static";

    private final ScriptedPlugin plugin = new ScriptedPlugin();
    private final FakeHost host = new FakeHost();

    // ---- start

    @Test
    void startRunsMainThenConfiguresWithThePluginConfiguration() {
        List<String> seen = new ArrayList<>();
        plugin.onConfigure = config -> seen.add(new String(config, StandardCharsets.UTF_8));
        host.withPluginConfig("{\"a\":1}");

        assertTrue(host.start(plugin::main));

        assertEquals(List.of("{\"a\":1}"), seen);
        assertTrue(host.configure("{\"a\":2}"), "configure runs again on the same root");
        assertEquals(List.of("{\"a\":1}", "{\"a\":2}"), seen);
    }

    @Test
    void aRejectedConfigurationIsReported() {
        plugin.onConfigure = config -> config.length > 0;

        assertFalse(host.start(plugin::main), "empty configuration");
        assertTrue(host.configure("{}"));
    }

    @Test
    void mainMayOnlyLog() {
        IllegalStateException thrown = assertThrows(
                IllegalStateException.class,
                () -> host.start(args -> {
                    Log.info("starting");
                    Metric.counter("too.early");
                }));

        assertTrue(thrown.getMessage().startsWith("proxy_define_metric called from main"), thrown.getMessage());
        assertEquals(List.of("INFO starting"), host.logs());
    }

    @Test
    void aMainThatRegistersNoPluginIsReported() {
        assertThrows(IllegalStateException.class, () -> host.start(args -> {}));
    }

    // ---- streams

    @Test
    void bodyChunksAreBufferedWhileTheGuestAsksAndForwardedTogether() {
        List<String> bodies = new ArrayList<>();
        plugin.onRequestHeaders = (count, end) -> HeaderStatus.STOP_ITERATION;
        plugin.onRequestBody = (size, end) -> {
            bodies.add(new String(Buffer.requestBody().get(0, size), StandardCharsets.UTF_8));
            return end ? DataStatus.CONTINUE : DataStatus.STOP_ITERATION_AND_BUFFER;
        };
        assertTrue(host.start(plugin::main));
        FakeStream stream = host.newStream();

        assertEquals(HeaderAction.STOP_ITERATION, stream.sendRequestHeaders(headers(":method", "POST"), false));
        assertEquals(DataAction.STOP_ITERATION_AND_BUFFER, stream.sendRequestBody("ab", false));
        assertTrue(stream.isRequestPaused());
        stream.sendRequestBody("cd", false);
        assertEquals(DataAction.CONTINUE, stream.sendRequestBody("ef", true));

        assertEquals(
                List.of("configure", "request headers 1", "request body 2", "request body 4", "request body 6 end"),
                plugin.events);
        assertEquals(List.of("ab", "abcd", "abcdef"), bodies);
        assertEquals("abcdef", new String(stream.forwardedRequestBody(), StandardCharsets.UTF_8));
        assertTrue(stream.requestHeadersForwarded());
        assertFalse(stream.isRequestPaused());
    }

    @Test
    void afterStopAllTheBodyReachesTheGuestInOneCallbackOnContinue() {
        host.withRedisCluster(REDIS, RedisResponder.always(RedisAnswer.reply(RespValue.simpleString("OK"))))
                .withManualDelivery();
        plugin.onConfigure = config -> initRedis();
        plugin.onRequestHeaders = (count, end) -> {
            Redis.command(REDIS, reply -> Stream.continueRequest(), "PING");
            return HeaderStatus.STOP_ALL_ITERATION_AND_BUFFER;
        };
        assertTrue(host.start(plugin::main));
        FakeStream stream = host.newStream();
        stream.sendRequestHeaders(headers(":method", "POST"), false);

        assertEquals(DataAction.STOP_ITERATION_AND_BUFFER, stream.sendRequestBody("ab", false));
        stream.sendRequestBody("cd", true);
        assertEquals(List.of("configure", "request headers 1"), plugin.events, "Envoy holds the chunks");

        assertEquals(1, host.deliverPending());

        assertEquals(List.of("configure", "request headers 1", "request body 4 end"), plugin.events);
        assertEquals("abcd", new String(stream.forwardedRequestBody(), StandardCharsets.UTF_8));
    }

    @Test
    void aLocalReplyPassesTheResponseCallbacksAndEndsTheStream() {
        plugin.onRequestHeaders = (count, end) -> {
            Stream.sendLocalResponse(
                    429, "limited", "slow down".getBytes(StandardCharsets.UTF_8), headers("x-reason", "quota"));
            return HeaderStatus.STOP_ITERATION;
        };
        assertTrue(host.start(plugin::main));
        FakeStream stream = host.newStream();

        stream.sendRequestHeaders(headers(":method", "POST"), false);

        LocalResponse reply = stream.localResponse().orElseThrow();
        assertEquals(429, reply.status());
        assertEquals("limited", reply.details());
        assertEquals("slow down", reply.bodyText());
        assertEquals(
                List.of(
                        Map.entry(":status", "429"),
                        Map.entry("x-reason", "quota"),
                        Map.entry("content-length", "9"),
                        Map.entry("content-type", "text/plain")),
                stream.responseHeaders());
        assertEquals(
                List.of(
                        "configure",
                        "request headers 1",
                        "response headers 4",
                        "response body 9 end",
                        "log",
                        "done",
                        "delete"),
                plugin.events);
        assertTrue(stream.isEnded());
        assertEquals(DataAction.CONTINUE, stream.sendRequestBody("late", true), "Envoy drops what still comes");
        assertEquals(7, plugin.events.size());
    }

    @Test
    void aCompleteResponseEndsTheStream() {
        assertTrue(host.start(plugin::main));
        FakeStream stream = host.newStream();
        stream.sendRequestHeaders(headers(":method", "GET"), true);

        stream.sendResponseHeaders(headers(":status", "200"), false);
        assertFalse(stream.isEnded());
        stream.sendResponseBody("hello", true);

        assertTrue(stream.isEnded());
        assertEquals("hello", new String(stream.forwardedResponseBody(), StandardCharsets.UTF_8));
        assertEquals(
                List.of("log", "done", "delete"),
                plugin.events.subList(plugin.events.size() - 3, plugin.events.size()));
        assertThrows(IllegalStateException.class, () -> stream.sendResponseBody("more", true));
    }

    @Test
    void headerMapsAreReadOnlyOnceForwardedAndDuringLog() {
        List<String> refused = new ArrayList<>();
        plugin.onRequestHeaders = (count, end) -> {
            Headers.request().add("x-added", "1");
            Headers.request().replace(":path", "/rewritten");
            return HeaderStatus.CONTINUE;
        };
        plugin.onResponseHeaders = (count, end) -> {
            refused.add(failure(() -> Headers.request().add("x-late", "1")));
            return HeaderStatus.CONTINUE;
        };
        plugin.onLog = () -> refused.add(failure(() -> Headers.response().remove(":status")));
        assertTrue(host.start(plugin::main));
        FakeStream stream = host.newStream();

        stream.sendRequestHeaders(headers(":method", "GET", ":path", "/"), true);
        stream.sendResponseHeaders(headers(":status", "200"), true);

        assertEquals(Optional.of("/rewritten"), stream.requestHeader(":path"));
        assertEquals(Optional.of("1"), stream.requestHeader("x-added"));
        assertEquals(Optional.empty(), stream.requestHeader("x-late"));
        assertEquals(
                List.of(
                        "proxy_add_header_map_value failed: BAD_ARGUMENT",
                        "proxy_remove_header_map_value failed: BAD_ARGUMENT"),
                refused);
    }

    @Test
    void aStreamReadsItsOwnPropertiesFirstAndKeepsWhatTheGuestSets() {
        List<Optional<String>> read = new ArrayList<>();
        plugin.onRequestHeaders = (count, end) -> {
            read.add(Properties.getString("route_name"));
            read.add(Properties.getString("plugin_name"));
            read.add(Properties.getString("request", "id"));
            Properties.set(List.of("ai_log"), "{\"x\":1}");
            return HeaderStatus.CONTINUE;
        };
        host.withProperty("route_name", "host-route").withProperty("plugin_name", "ai-load-balancer");
        assertTrue(host.start(plugin::main));
        FakeStream stream = host.newStream().withRouteName("stream-route").withProperty("request.id", "r-1");

        stream.sendRequestHeaders(headers(":method", "GET"), true);

        assertEquals(List.of(Optional.of("stream-route"), Optional.of("ai-load-balancer"), Optional.of("r-1")), read);
        assertEquals(Optional.of("{\"x\":1}"), stream.property("ai_log"));
        assertEquals(Optional.empty(), host.property("ai_log"), "set by a stream: the stream's");
    }

    @Test
    void upstreamHostsComeFromTheStreamOrTheHostAndTheOverrideIsRecorded() {
        List<String> seen = new ArrayList<>();
        plugin.onRequestHeaders = (count, end) -> {
            Upstreams.hosts().forEach(upstream -> seen.add(upstream.address()));
            Upstreams.setOverrideHost(Upstreams.hosts().get(0).address());
            return HeaderStatus.CONTINUE;
        };
        host.withUpstreamHosts(List.of(HigressHosts.healthy("10.0.0.1:80"), HigressHosts.unhealthy("10.0.0.2:80")));
        assertTrue(host.start(plugin::main));

        FakeStream first = host.newStream();
        first.sendRequestHeaders(headers(":method", "GET"), true);
        FakeStream second = host.newStream()
                .withUpstreamHosts(List.of(HigressHosts.withMetrics("10.0.0.9:80", "vllm:num_requests_waiting 3\n")));
        second.sendRequestHeaders(headers(":method", "GET"), true);

        assertEquals(List.of("10.0.0.1:80", "10.0.0.2:80", "10.0.0.9:80"), seen);
        assertEquals(Optional.of("10.0.0.1:80"), first.upstreamOverride());
        assertFalse(first.upstreamOverrideAfterRouting());
        assertEquals(Optional.of("10.0.0.9:80"), second.upstreamOverride());
        assertEquals(
                "{\n\"health_status\": \"Healthy\",\n\"metrics\": \"vllm:num_requests_waiting 3\\n\"\n}",
                HigressHosts.withMetrics("a", "vllm:num_requests_waiting 3\n").info());
    }

    @Test
    void anOverrideAfterTheHeadersWentOnIsMarkedLate() {
        plugin.onResponseHeaders = (count, end) -> {
            Upstreams.setOverrideHost("10.0.0.1:80");
            return HeaderStatus.CONTINUE;
        };
        assertTrue(host.start(plugin::main));
        FakeStream stream = host.newStream();
        stream.sendRequestHeaders(headers(":method", "GET"), true);

        stream.sendResponseHeaders(headers(":status", "200"), false);

        assertTrue(stream.upstreamOverrideAfterRouting(), "Envoy ignores an override after routing");
    }

    // ---- metrics, shared data, ticks, HTTP callouts

    @Test
    void metricsKeepTheirTypes() {
        plugin.onConfigure = config -> {
            Metric.counter("requests").increment(2);
            Metric.counter("requests").increment(1);
            Metric.gauge("queue").record(5);
            Metric.gauge("queue").record(3);
            Metric.histogram("latency").record(12);
            Metric.histogram("latency").record(7);
            return true;
        };
        assertTrue(host.start(plugin::main));

        assertEquals(3, host.metric("requests"));
        assertEquals(3, host.metric("queue"));
        assertEquals(List.of(12L, 7L), host.histogram("latency"));
        assertEquals(List.of("requests", "queue", "latency"), host.metricNames());
        assertThrows(IllegalArgumentException.class, () -> host.metric("latency"));
        assertThrows(IllegalArgumentException.class, () -> host.metric("never.defined"));
        ProxyWasmException retyped = assertThrows(ProxyWasmException.class, () -> Metric.gauge("requests"));
        assertEquals(WasmResult.BAD_ARGUMENT, retyped.result());
    }

    @Test
    void sharedDataWritesCompareAndSwap() {
        host.withSharedData("k", new byte[] {1});
        assertTrue(host.start(plugin::main));

        int cas = SharedData.get("k").orElseThrow().cas();
        assertTrue(SharedData.set("k", new byte[] {2}, cas));
        assertFalse(SharedData.set("k", new byte[] {3}, cas), "someone wrote since");
        assertTrue(SharedData.set("k", new byte[] {4}, 0), "0 writes unconditionally");

        assertArrayEquals(new byte[] {4}, host.sharedData("k").orElseThrow());
        assertEquals(Optional.empty(), SharedData.get("other"));
    }

    @Test
    void ticksRunOnlyOnceThePluginAskedForThem() {
        assertTrue(host.start(plugin::main));

        assertFalse(host.tick());
        Clock.setTickPeriodMillis(1000);
        assertTrue(host.tick());

        assertEquals(1000, host.tickPeriodMillis());
        assertEquals(List.of("configure", "tick"), plugin.events);
    }

    @Test
    void anHttpCalloutFromATickIsAnsweredByTheResponderAfterTheTick() {
        List<String> seen = new ArrayList<>();
        plugin.onConfigure = config -> {
            Clock.setTickPeriodMillis(500);
            return true;
        };
        plugin.onTick = () -> HttpCall.dispatch(
                "outbound|80||metrics",
                headers(":method", "GET", ":path", "/metrics", ":authority", "10.0.0.1:80"),
                new byte[0],
                List.of(),
                1000,
                response -> seen.add(response.status() + " " + new String(response.body(), StandardCharsets.UTF_8)));
        host.withHttpResponder(call -> call.header(":path").orElse("").equals("/metrics")
                ? HttpAnswer.status(200).withBody("up 1")
                : HttpAnswer.status(404));
        assertTrue(host.start(plugin::main));

        assertTrue(host.tick());

        assertEquals(List.of("200 up 1"), seen);
        HttpCallout call = host.httpCallouts().get(0);
        assertEquals("outbound|80||metrics", call.cluster());
        assertEquals(1000, call.timeoutMillis());
        assertTrue(call.isDelivered());
    }

    @Test
    void anHttpCallWithoutItsPseudoHeadersIsRefused() {
        assertTrue(host.start(plugin::main));

        ProxyWasmException refused = assertThrows(
                ProxyWasmException.class,
                () -> HttpCall.dispatch("c", headers(":method", "GET"), new byte[0], List.of(), 1000, response -> {}));

        assertEquals(WasmResult.BAD_ARGUMENT, refused.result());
    }

    // ---- Redis

    @Test
    void redisAnswersArriveAfterTheCallbackInCallOrder() {
        List<String> seen = new ArrayList<>();
        host.withRedisCluster(
                REDIS, RedisResponder.inOrder(RedisAnswer.reply(RespValue.integer(1)), RedisAnswer.noScript()));
        plugin.onConfigure = config -> initRedis();
        plugin.onRequestHeaders = (count, end) -> {
            Redis.command(REDIS, reply -> seen.add("first " + reply), "INCR", "k");
            Redis.command(
                    REDIS,
                    reply -> {
                        seen.add("second " + reply.value().errorCode());
                        Stream.continueRequest();
                    },
                    "EVALSHA",
                    "abc",
                    "0");
            seen.add("callback returns");
            return HeaderStatus.STOP_ITERATION;
        };
        assertTrue(host.start(plugin::main));
        FakeStream stream = host.newStream();

        stream.sendRequestHeaders(headers(":method", "GET"), true);

        assertEquals(List.of("callback returns", "first " + RespValue.integer(1), "second NOSCRIPT"), seen);
        assertTrue(stream.requestHeadersForwarded(), "the second reply resumed the request");
        assertEquals(
                List.of(7, 11),
                List.of(
                        host.redisCallouts().get(0).token(),
                        host.redisCallouts().get(1).token()));
        assertEquals(List.of("EVALSHA", "abc", "0"), host.redisCallouts().get(1).command());
    }

    @Test
    void withManualDeliveryAnswersWaitForTheTest() {
        List<RedisReply> replies = new ArrayList<>();
        host.withRedisCluster(REDIS, RedisResponder.always(RedisAnswer.reply(RespValue.integer(4))))
                .withManualDelivery();
        plugin.onConfigure = config -> initRedis();
        plugin.onRequestHeaders = (count, end) -> {
            Redis.command(REDIS, replies::add, "INCR", "k");
            return HeaderStatus.STOP_ITERATION;
        };
        assertTrue(host.start(plugin::main));
        FakeStream stream = host.newStream();

        stream.sendRequestHeaders(headers(":method", "GET"), true);
        assertEquals(List.of(), replies);
        assertEquals(
                Optional.of(RespValue.integer(4)),
                host.redisCallouts().get(0).answer().map(RedisAnswer::value));

        assertEquals(1, host.deliverPending());
        assertEquals(RespValue.integer(4), replies.get(0).value());
        assertEquals(0, host.deliverPending());
    }

    @Test
    void aPendingAnswerWaitsUntilTheTestDeliversOne() {
        List<RedisReply> replies = new ArrayList<>();
        host.withRedisCluster(REDIS, RedisResponder.always(RedisAnswer.pending()));
        plugin.onConfigure = config -> initRedis();
        plugin.onRequestHeaders = (count, end) -> {
            Redis.command(REDIS, replies::add, "GET", "k");
            return HeaderStatus.STOP_ITERATION;
        };
        assertTrue(host.start(plugin::main));
        FakeStream stream = host.newStream();
        stream.sendRequestHeaders(headers(":method", "GET"), true);

        assertEquals(0, host.deliverPending());
        assertTrue(stream.isRequestPaused());
        RedisCallout call = host.redisCallouts().get(0);
        assertThrows(IllegalStateException.class, call::deliver, "nothing to deliver yet");
        call.deliver(RedisAnswer.networkError());

        assertEquals("redis status NETWORK_ERROR", replies.get(0).failure());
        assertThrows(IllegalStateException.class, () -> call.deliver(RedisAnswer.networkError()));
    }

    @Test
    void redisClustersMustBeKnownAndInitialised() {
        host.withRedisCluster(REDIS, RedisResponder.always(RedisAnswer.pending()));
        assertTrue(host.start(plugin::main));

        ProxyWasmException unknown =
                assertThrows(ProxyWasmException.class, () -> Redis.init("outbound|6379||other", "", "", 100));
        ProxyWasmException uninitialised =
                assertThrows(ProxyWasmException.class, () -> Redis.command(REDIS, reply -> {}, "PING"));

        assertEquals(WasmResult.BAD_ARGUMENT, unknown.result());
        assertEquals(WasmResult.INTERNAL_FAILURE, uninitialised.result());
        assertEquals(List.of(), host.redisCallouts());
    }

    @Test
    void aResponderThatRunsOutOfAnswersFailsTheTest() {
        host.withRedisCluster(REDIS, RedisResponder.inOrder(RedisAnswer.reply(RespValue.integer(1))));
        plugin.onConfigure = config -> initRedis();
        plugin.onRequestHeaders = (count, end) -> {
            Redis.command(REDIS, reply -> {}, "INCR", "a");
            Redis.command(REDIS, reply -> {}, "INCR", "b");
            return HeaderStatus.CONTINUE;
        };
        assertTrue(host.start(plugin::main));
        FakeStream stream = host.newStream();

        IllegalStateException thrown = assertThrows(
                IllegalStateException.class, () -> stream.sendRequestHeaders(headers(":method", "GET"), true));

        assertTrue(
                thrown.getCause().getMessage().startsWith("no answer scripted for Redis call 2"),
                thrown.getCause().getMessage());
    }

    @Test
    void aFailedCallThrowsTheScriptedStatusUntilRestored() {
        assertTrue(host.start(plugin::main));
        host.failCalls("proxy_define_metric", WasmResult.UNIMPLEMENTED)
                .failCalls("proxy_get_property", WasmResult.NOT_FOUND);

        ProxyWasmException thrown = assertThrows(ProxyWasmException.class, () -> Metric.counter("c"));
        assertEquals(WasmResult.UNIMPLEMENTED, thrown.result());
        assertEquals(Optional.empty(), Properties.get("anything"), "NOT_FOUND reads as absent");

        host.restoreCalls("proxy_define_metric");
        Metric.counter("c").increment(1);
        assertEquals(1, host.metric("c"));
        assertEquals(2, host.callCount("proxy_define_metric"), "the failed definition and the one after");
    }

    @Test
    void realRedisAnswersFromTheServerInTheDatabaseTheClusterSelects() {
        try (RealRedis redis = RealRedis.start()) {
            redis.flushAll();
            List<String> seen = new ArrayList<>();
            host.withRedisCluster(REDIS, redis);
            plugin.onConfigure = config -> {
                Redis.init(REDIS + "?db=2", "", "", 1000);
                return true;
            };
            plugin.onRequestHeaders = (count, end) -> {
                Redis.command(REDIS, reply -> seen.add(reply.toString()), "SET", "k", "v");
                Redis.command(REDIS, reply -> seen.add(reply.value().asString()), "GET", "k");
                return HeaderStatus.CONTINUE;
            };
            assertTrue(host.start(plugin::main));

            host.newStream().sendRequestHeaders(headers(":method", "GET"), true);

            assertEquals(List.of(RespValue.simpleString("OK").toString(), "v"), seen);
            assertEquals(2, host.redisCallouts().get(0).database());
            assertEquals(RespValue.integer(0), redis.command("EXISTS", "k"), "database 0 is untouched");
            redis.close();
            host.newStream().sendRequestHeaders(headers(":method", "GET"), true);
            assertTrue(host.redisCallouts().get(2).answer().orElseThrow().isNetworkError(), "the server is gone");
        }
    }

    private static boolean initRedis() {
        Redis.init(REDIS, "", "", 1000);
        return true;
    }

    private static String failure(Runnable hostCall) {
        try {
            hostCall.run();
            return "allowed";
        } catch (ProxyWasmException e) {
            return e.getMessage();
        }
    }
}
