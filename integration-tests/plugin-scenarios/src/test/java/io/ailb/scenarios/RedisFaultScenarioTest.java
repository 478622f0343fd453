package io.ailb.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.emulator.Gateway;
import io.ailb.emulator.HttpStream;
import io.ailb.emulator.MetricRegistry;
import io.ailb.emulator.PluginVm;
import io.ailb.emulator.RecordedRedisCall;
import io.ailb.emulator.RedisFault;
import io.ailb.emulator.VirtualClock;
import io.ailb.lb.shell.ShellFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Redis faults as values ({@link RedisFault}), met by every Redis policy through the real .wasm on a virtual clock:
 * each request is routed — by the cluster's load balancer where Redis failed — within the configured {@code timeout},
 * and every in-flight count Redis took comes back when its stream ends.
 */
@Timeout(120)
class RedisFaultScenarioTest {
    static final int TIMEOUT_MILLIS = 300;

    @BeforeEach
    void emptyRedis() {
        PluginFixture.redis().flushAll();
    }

    static List<String> redisPolicies() {
        return VmLifetimeScenarioTest.redisPolicies().toList();
    }

    /** A gateway on a virtual clock running {@code policy} with a {@value #TIMEOUT_MILLIS} ms Redis timeout. */
    static Gateway gateway(String policy) {
        return PluginFixture.gateway("{\"lb_policy\":\"" + policy + "\",\"lb_config\":{"
                        + ShellFixture.redisConfig("\"timeout\":" + TIMEOUT_MILLIS) + "}}")
                .withClock(VirtualClock.startingAt(Instant.EPOCH))
                .build();
    }

    /** One clean request first: the scripts are loaded and the connection is up, so a fault meets a warm path. */
    static PluginVm warmVm(Gateway gateway) {
        PluginVm vm = gateway.startVm();
        HttpStream warm = PluginFixture.send(vm, ShellFixture.chat("s", "warm up"));
        assertTrue(warm.upstreamOverride().isPresent());
        warm.complete();
        assertEquals(0L, PluginFixture.totalInflight());
        return vm;
    }

    static void assertLeftToTheCluster(HttpStream stream) {
        assertTrue(stream.requestHeadersForwarded(), "the request went on");
        assertFalse(stream.upstreamOverride().isPresent(), "the cluster's own load balancer decided");
    }

    private static long lastDecisionMillis(MetricRegistry metrics) {
        List<Long> samples = metrics.samples("ailb.decision_time_ms");
        return samples.get(samples.size() - 1);
    }

    @ParameterizedTest
    @MethodSource("redisPolicies")
    void aReplyDelayedPastTheTimeoutIsRoutedByTheFallbackAtTheTimeout(String policy) {
        Gateway gateway = gateway(policy);
        PluginVm vm = warmVm(gateway);
        gateway.redisFaults().once(RedisFault.delay(Duration.ofSeconds(5)));

        HttpStream stream = PluginFixture.send(vm, ShellFixture.chat("s", "slow redis"));
        assertFalse(stream.requestHeadersForwarded(), "held while Redis is out");
        gateway.advance(Duration.ofMillis(TIMEOUT_MILLIS - 1));
        assertFalse(stream.requestHeadersForwarded(), "still held 1 ms before the timeout");
        gateway.advance(Duration.ofMillis(1));

        assertLeftToTheCluster(stream);
        assertEquals(TIMEOUT_MILLIS, lastDecisionMillis(gateway.metrics()), "decided at the timeout");
        assertEquals(1L, gateway.metrics().value("ailb.fallback.redis_error"));
        assertEquals(1L, PluginFixture.totalInflight(), "the script ran: Redis holds its count (and lease)");
        stream.complete();
        assertEquals(0L, PluginFixture.totalInflight(), "its release gave it back");
    }

    @ParameterizedTest
    @MethodSource("redisPolicies")
    void aSlowReplyWithinTheTimeoutStillRoutes(String policy) {
        Gateway gateway = gateway(policy);
        PluginVm vm = warmVm(gateway);
        gateway.redisFaults().once(RedisFault.delay(Duration.ofMillis(TIMEOUT_MILLIS - 50)));

        HttpStream stream = PluginFixture.send(vm, ShellFixture.chat("s", "slowish redis"));
        gateway.advance(Duration.ofMillis(TIMEOUT_MILLIS - 50));

        assertTrue(stream.upstreamOverride().isPresent());
        assertTrue(stream.requestHeadersForwarded());
        assertEquals(TIMEOUT_MILLIS - 50, lastDecisionMillis(gateway.metrics()));
        stream.complete();
        assertEquals(0L, PluginFixture.totalInflight());
    }

    @ParameterizedTest
    @MethodSource("redisPolicies")
    void anErrorReplyFallsBackAndCountsNothing(String policy) {
        Gateway gateway = gateway(policy);
        PluginVm vm = warmVm(gateway);
        gateway.redisFaults().once(RedisFault.errorReply("ERR injected"));

        HttpStream failed = PluginFixture.send(vm, ShellFixture.chat("s", "error reply"));

        assertLeftToTheCluster(failed);
        assertEquals(0L, PluginFixture.totalInflight());
        assertEquals(1L, gateway.metrics().value("ailb.redis.errors"));
        failed.complete();
        assertEquals(0L, PluginFixture.totalInflight(), "a release of a count never taken takes nothing");
        HttpStream next = PluginFixture.send(vm, ShellFixture.chat("s", "after"));
        assertTrue(next.upstreamOverride().isPresent(), "the next request is routed by Redis again");
        next.complete();
        assertEquals(0L, PluginFixture.totalInflight());
    }

    @ParameterizedTest
    @MethodSource("redisPolicies")
    void aRedisThatLostItsScriptsGetsThemOnceByEval(String policy) {
        Gateway gateway = gateway(policy);
        PluginVm vm = warmVm(gateway);
        PluginFixture.redis().command("SCRIPT", "FLUSH");
        int before = vm.redisCalls().size();

        HttpStream stream = PluginFixture.send(vm, ShellFixture.chat("s", "after a flush"));

        assertTrue(stream.upstreamOverride().isPresent(), "routed by Redis after all");
        List<String> commands =
                commandWords(vm.redisCalls().subList(before, vm.redisCalls().size()));
        assertEquals(List.of("EVALSHA", "EVAL"), commands, "NOSCRIPT, then the script once");
        stream.complete();
        int afterFirst = vm.redisCalls().size();
        PluginFixture.send(vm, ShellFixture.chat("s", "second")).complete();
        assertFalse(
                commandWords(vm.redisCalls().subList(afterFirst, vm.redisCalls().size()))
                        .contains("EVAL"),
                "the script is cached again: EVALSHA only");
        assertEquals(0L, PluginFixture.totalInflight());
    }

    @ParameterizedTest
    @MethodSource("redisPolicies")
    void aConnectionDroppedBeforeOrAfterTheScriptRanFallsBackAndEveryCountComesBack(String policy) {
        Gateway gateway = gateway(policy);
        PluginVm vm = warmVm(gateway);

        gateway.redisFaults().once("EVALSHA", RedisFault.dropBeforeSend());
        HttpStream notRun = PluginFixture.send(vm, ShellFixture.chat("s", "dropped before"));
        assertLeftToTheCluster(notRun);
        assertEquals(0L, PluginFixture.totalInflight(), "nothing reached Redis");

        gateway.redisFaults().once("EVALSHA", RedisFault.dropAfterSend());
        HttpStream ranUnseen = PluginFixture.send(vm, ShellFixture.chat("s", "dropped after"));
        assertLeftToTheCluster(ranUnseen);
        assertEquals(1L, PluginFixture.totalInflight(), "Redis counted the request whose reply was lost");

        HttpStream reconnected = PluginFixture.send(vm, ShellFixture.chat("s", "reconnected"));
        assertTrue(reconnected.upstreamOverride().isPresent(), "the next call reconnects");
        notRun.complete();
        ranUnseen.complete();
        reconnected.complete();
        assertEquals(0L, PluginFixture.totalInflight(), PluginFixture.inflight().toString());
    }

    @ParameterizedTest
    @MethodSource("redisPolicies")
    void aStreamResetBeforeItsReplyLeaksNothingWhetherTheReplyComesOrTimesOut(String policy) {
        Gateway gateway = gateway(policy);
        PluginVm vm = warmVm(gateway);
        gateway.redisFaults()
                .once(RedisFault.delay(Duration.ofMillis(100)))
                .once(RedisFault.delay(Duration.ofSeconds(5)));
        HttpStream replied = PluginFixture.send(vm, ShellFixture.chat("s", "reset, then the reply"));
        HttpStream timedOut = PluginFixture.send(vm, ShellFixture.chat("s", "reset, then the timeout"));
        assertEquals(2L, PluginFixture.totalInflight(), "both scripts ran");

        replied.reset();
        timedOut.reset();
        assertEquals(2L, PluginFixture.totalInflight(), "no release may overtake its increment");
        gateway.advance(Duration.ofMillis(TIMEOUT_MILLIS));

        assertEquals(0L, PluginFixture.totalInflight(), PluginFixture.inflight().toString());
        assertFalse(replied.upstreamOverride().isPresent(), "a late reply touches no stream");
        assertEquals(0, vm.scheduledCount());
        assertTrue(vm.isAlive());
    }

    private static List<String> commandWords(List<RecordedRedisCall> calls) {
        return calls.stream().map(call -> call.commandText().split(" ")[0]).toList();
    }
}
