package io.ailb.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.resp.RespValue;
import io.ailb.emulator.bindings.LogLevel;
import io.ailb.emulator.bindings.RedisStatus;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Redis calls from probe.wasm against a real Redis. */
@Timeout(120)
final class ProbeRedisTest {
    private static final String CLUSTER = "outbound|6379||redis.static";
    private static WasmPlugin plugin;
    private static LocalRedis redis;

    @BeforeAll
    static void start() {
        plugin = Probe.load();
        redis = LocalRedis.start();
    }

    @AfterAll
    static void stop() {
        if (redis != null) {
            redis.close();
        }
    }

    @BeforeEach
    void flush() {
        redis.flushAll();
    }

    private static Gateway.Builder gateway(String cluster) {
        return Gateway.builder(plugin)
                .withRedisCluster(CLUSTER, redis.endpoint())
                .withPluginConfig("{\"redis\": {\"cluster\": \"" + cluster + "\", \"timeoutMs\": 500}}");
    }

    /** How the probe answers a reply: {@code redis=} and the codec's text form of it. */
    private static String reply(RespValue value) {
        return "redis=" + value;
    }

    private static HeaderMap redisRequest(String command) {
        return Probe.request("redis", "x-probe-redis", command);
    }

    @Test
    void anIncrRoundTripsThroughTheRealRedis() {
        PluginVm vm = gateway(CLUSTER).build().startVm();
        assertEquals(reply(RespValue.integer(1)), Probe.answer(vm, redisRequest("INCR probe:k")));
        assertEquals(reply(RespValue.integer(2)), Probe.answer(vm, redisRequest("INCR probe:k")));
        assertEquals("2", redis.command("GET", "probe:k").asString());
    }

    @Test
    void redisTokensAre7Then11PerVm() {
        PluginVm vm = gateway(CLUSTER).build().startVm();
        Probe.answer(vm, redisRequest("INCR probe:k"));
        Probe.answer(vm, redisRequest("INCR probe:k"));
        List<RecordedRedisCall> calls = vm.redisCalls();
        assertEquals(7, calls.get(0).token());
        assertEquals(11, calls.get(1).token());
        assertEquals("INCR probe:k", calls.get(0).commandText());
    }

    @Test
    void redisInitReportsOkForARegisteredCluster() {
        PluginVm vm = gateway(CLUSTER).build().startVm();
        assertTrue(
                vm.logs(LogLevel.INFO).contains("redis_init status=OK"),
                vm.logs().toString());
    }

    @Test
    void redisInitOnAnUnknownClusterIsABadArgument() {
        PluginVm vm = gateway("outbound|6379||nowhere").build().startVm();
        assertTrue(
                vm.logs(LogLevel.INFO).contains("redis_init status=BAD_ARGUMENT"),
                vm.logs().toString());
    }

    @Test
    void aDbSuffixSelectsTheDatabase() {
        PluginVm vm = gateway(CLUSTER + "?db=3").build().startVm();
        assertEquals(reply(RespValue.simpleString("OK")), Probe.answer(vm, redisRequest("SET probe:db three")));
        assertTrue(redis.command("GET", "probe:db").isNull());
        assertEquals(reply(RespValue.bulkString("three")), Probe.answer(vm, redisRequest("GET probe:db")));
    }

    @Test
    void aReplyAfterTheStreamWasResetReachesTheRootAsAnOrphan() {
        PluginVm vm = gateway(CLUSTER).withDelivery(Delivery.MANUAL).build().startVm();
        HttpStream stream = vm.newHttpStream();
        stream.sendRequestHeaders(redisRequest("INCR probe:k"), true);
        stream.reset();
        assertEquals(1, vm.deliverPending());
        assertTrue(
                vm.logs(LogLevel.INFO).contains("orphan redis reply token=7"),
                vm.logs().toString());
        assertTrue(stream.localReply().isEmpty());
    }

    @Test
    void aStoppedRedisGivesStatus1() {
        try (LocalRedis own = LocalRedis.start()) {
            Assumptions.assumeTrue(own.isEmbedded(), "REDIS_URL servers cannot be stopped");
            PluginVm vm = Gateway.builder(plugin)
                    .withRedisCluster(CLUSTER, own.endpoint())
                    .withPluginConfig("{\"redis\": {\"cluster\": \"" + CLUSTER + "\", \"timeoutMs\": 300}}")
                    .build()
                    .startVm();
            assertEquals(reply(RespValue.integer(1)), Probe.answer(vm, redisRequest("INCR probe:k")));
            own.stop();
            assertEquals(
                    "redis failed status=" + RedisStatus.NETWORK_ERROR, Probe.answer(vm, redisRequest("INCR probe:k")));
            own.restart();
            assertEquals(
                    reply(RespValue.integer(1)),
                    Probe.answer(vm, redisRequest("INCR probe:k")),
                    "reconnects after the outage");
        }
    }

    @Test
    void twoVmsShareOneRedisWithTheirOwnTokens() {
        List<PluginVm> vms = gateway(CLUSTER).build().start(2);
        assertEquals(reply(RespValue.integer(1)), Probe.answer(vms.get(0), redisRequest("INCR probe:shared")));
        assertEquals(reply(RespValue.integer(2)), Probe.answer(vms.get(1), redisRequest("INCR probe:shared")));
        assertEquals(7, vms.get(1).redisCalls().get(0).token());
    }

    @Test
    void twoGatewaysShareOneRedis() {
        PluginVm first = gateway(CLUSTER).build().startVm();
        PluginVm second = gateway(CLUSTER).build().startVm();
        Probe.answer(first, redisRequest("INCR probe:gw"));
        assertEquals(reply(RespValue.integer(2)), Probe.answer(second, redisRequest("INCR probe:gw")));
    }

    @Test
    void roundTripsAndBytesAreCountedPerVm() {
        Gateway gateway = gateway(CLUSTER).build();
        PluginVm vm = gateway.startVm();
        Probe.answer(vm, redisRequest("INCR probe:k"));
        RedisStats stats = vm.redisStats();
        assertEquals(1, stats.roundTrips());
        assertEquals("*2\r\n$4\r\nINCR\r\n$7\r\nprobe:k\r\n".length(), stats.bytesSent());
        assertEquals(":1\r\n".length(), stats.bytesReceived());
        assertEquals(stats, gateway.redisStats());
    }
}
