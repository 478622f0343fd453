package io.ailb.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.resp.RespValue;
import io.ailb.emulator.bindings.RedisStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Redis faults as values ({@link RedisFault}, {@link Gateway#redisFaults()}), met by probe.wasm's Redis op. */
@Timeout(120)
final class RedisFaultsTest {
    private static final String CLUSTER = "outbound|6379||redis.static";
    private static final int TIMEOUT_MILLIS = 500;
    private static final String FAILED = "redis failed status=" + RedisStatus.NETWORK_ERROR;
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

    private static Gateway gateway(java.time.Clock clock) {
        return Gateway.builder(plugin)
                .withRedisCluster(CLUSTER, redis.endpoint())
                .withPluginConfig(
                        "{\"redis\": {\"cluster\": \"" + CLUSTER + "\", \"timeoutMs\": " + TIMEOUT_MILLIS + "}}")
                .withClock(clock)
                .build();
    }

    private static Gateway virtualGateway() {
        return gateway(VirtualClock.startingAt(Instant.EPOCH));
    }

    private static HttpStream incr(PluginVm vm) {
        HttpStream stream = vm.newHttpStream();
        stream.sendRequestHeaders(Probe.request("redis", "x-probe-redis", "INCR probe:k"), true);
        return stream;
    }

    private static String answer(HttpStream stream) {
        return stream.localReply().orElseThrow().bodyText();
    }

    private static long counter() {
        RespValue value = redis.command("GET", "probe:k");
        return value.isNull() ? 0 : Long.parseLong(value.asString());
    }

    @Test
    void aDelayedReplyArrivesWhenTheVirtualClockReachesIt() {
        Gateway gateway = virtualGateway();
        PluginVm vm = gateway.startVm();
        gateway.redisFaults().once(RedisFault.delay(Duration.ofMillis(200)));

        HttpStream stream = incr(vm);
        assertEquals(1, vm.scheduledCount());
        assertEquals(1, counter(), "the command ran at once");
        gateway.advance(Duration.ofMillis(199));
        assertTrue(stream.localReply().isEmpty(), "not before its delay");

        gateway.advance(Duration.ofMillis(1));

        assertEquals("redis=" + RespValue.integer(1), answer(stream));
        assertEquals(0, vm.scheduledCount());
        assertEquals(0, gateway.redisFaults().pending(), "a once-rule is used up");
    }

    @Test
    void aReplyDelayedPastTheTimeoutFailsAtTheTimeoutYetTheCommandRan() {
        Gateway gateway = virtualGateway();
        PluginVm vm = gateway.startVm();
        gateway.redisFaults().once(RedisFault.delay(Duration.ofSeconds(5)));

        HttpStream stream = incr(vm);
        gateway.advance(Duration.ofMillis(TIMEOUT_MILLIS - 1));
        assertTrue(stream.localReply().isEmpty());
        gateway.advance(Duration.ofMillis(1));

        assertEquals(FAILED, answer(stream));
        assertEquals(1, counter());
        assertEquals(1, vm.redisStats().failures());
        assertTrue(vm.lastRedisFailure().contains("timed out after " + TIMEOUT_MILLIS + " ms"), vm.lastRedisFailure());
    }

    @Test
    void delayedRepliesComeInTheOrderTheirTimesFallDue() {
        Gateway gateway = virtualGateway();
        PluginVm vm = gateway.startVm();
        gateway.redisFaults()
                .once(RedisFault.delay(Duration.ofMillis(300)))
                .once(RedisFault.delay(Duration.ofMillis(100)));

        HttpStream slow = incr(vm);
        HttpStream fast = incr(vm);
        gateway.advance(Duration.ofMillis(100));

        assertEquals("redis=" + RespValue.integer(2), answer(fast));
        assertTrue(slow.localReply().isEmpty());
        gateway.advance(Duration.ofMillis(200));
        assertEquals("redis=" + RespValue.integer(1), answer(slow));
    }

    @Test
    void anErrorReplyReplacesTheCommandWhichDoesNotRun() {
        Gateway gateway = virtualGateway();
        PluginVm vm = gateway.startVm();
        gateway.redisFaults().once(RedisFault.errorReply("ERR injected"));

        assertEquals("redis=" + RespValue.error("ERR injected"), answer(incr(vm)));
        assertEquals(0, counter());
        assertEquals("redis=" + RespValue.integer(1), answer(incr(vm)), "only the next call met it");
    }

    @Test
    void noScriptAnswersAsARedisThatLostItsScripts() {
        Gateway gateway = virtualGateway();
        PluginVm vm = gateway.startVm();
        gateway.redisFaults().once(RedisFault.noScript());

        assertEquals("redis=" + RespValue.error(RedisFault.NOSCRIPT_MESSAGE), answer(incr(vm)));
    }

    @Test
    void aConnectionDroppedBeforeSendingRunsNothingAndTheNextCallReconnects() {
        Gateway gateway = virtualGateway();
        PluginVm vm = gateway.startVm();
        gateway.redisFaults().once(RedisFault.dropBeforeSend());

        assertEquals(FAILED, answer(incr(vm)));
        assertEquals(0, counter());
        assertEquals("redis=" + RespValue.integer(1), answer(incr(vm)));
    }

    @Test
    void aConnectionDroppedAfterSendingLosesTheReplyButNotTheEffect() {
        Gateway gateway = virtualGateway();
        PluginVm vm = gateway.startVm();
        gateway.redisFaults().once(RedisFault.dropAfterSend());

        assertEquals(FAILED, answer(incr(vm)));
        assertEquals(1, counter());
        assertEquals("redis=" + RespValue.integer(2), answer(incr(vm)));
    }

    @Test
    void rulesMatchByCommandAndAlwaysRulesLastUntilCleared() {
        Gateway gateway = virtualGateway();
        PluginVm vm = gateway.startVm();
        gateway.redisFaults().always("get", RedisFault.reply("garbage\r\n"));

        assertEquals("redis=" + RespValue.integer(1), answer(incr(vm)), "INCR does not match GET");
        HttpStream get = vm.newHttpStream();
        get.sendRequestHeaders(Probe.request("redis", "x-probe-redis", "GET probe:k"), true);
        assertTrue(answer(get).startsWith("redis failed "), "the guest could not decode it: " + answer(get));
        assertEquals(1, gateway.redisFaults().pending());
        assertEquals(1, gateway.redisFaults().injected());

        gateway.redisFaults().clear();
        HttpStream again = vm.newHttpStream();
        again.sendRequestHeaders(Probe.request("redis", "x-probe-redis", "GET probe:k"), true);
        assertEquals("redis=" + RespValue.bulkString("1"), answer(again));
    }

    @Test
    void aDelayNeedsAVirtualClock() {
        Gateway gateway = gateway(java.time.Clock.systemUTC());

        assertThrows(EmulatorException.class, () -> gateway.redisFaults().once(RedisFault.delay(Duration.ofMillis(1))));
    }

    @Test
    void upstreamHostsCanChangeWhileTheGatewayRuns() {
        Gateway gateway = Gateway.builder(plugin)
                .withUpstreamHosts("llm", List.of(ClusterHost.healthy("10.0.0.1:80")))
                .build();
        PluginVm vm = gateway.startVm();

        gateway.setUpstreamHosts(
                "llm", List.of(new ClusterHost("10.0.0.1:80", "Unhealthy", ""), ClusterHost.healthy("10.0.0.2:80")));
        HttpStream stream = vm.newHttpStream().withClusterName("llm");
        stream.sendRequestHeaders(Probe.request("upstreams"), true);

        assertEquals("10.0.0.1:80 Unhealthy\n10.0.0.2:80 Healthy\noverride=10.0.0.2:80", answer(stream));
    }
}
