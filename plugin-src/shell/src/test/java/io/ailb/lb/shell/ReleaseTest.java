package io.ailb.lb.shell;

import static io.ailb.lb.shell.ShellFixture.A;
import static io.ailb.lb.shell.ShellFixture.B;
import static io.ailb.lb.shell.ShellFixture.C;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.proxywasm.bindings.WasmResult;
import io.ailb.proxywasm.testkit.FakeHost;
import io.ailb.proxywasm.testkit.FakeStream;
import io.ailb.proxywasm.testkit.LocalResponse;
import io.ailb.proxywasm.testkit.RealRedis;
import io.ailb.proxywasm.testkit.RedisCallout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * global_least_request against a real Redis: what a decision counts in flight is released exactly once when the stream
 * ends — completed, answered locally, reset before the reply, or after the gateway refused the override.
 */
class ReleaseTest {
    private static final RealRedis redis = ShellFixture.redis();

    @BeforeEach
    void emptyRedis() {
        redis.flushAll();
    }

    private static FakeHost glr(String extraConfig) {
        return ShellFixture.host(
                "{\"lb_policy\":\"global_least_request\",\"lb_config\":{" + ShellFixture.REDIS_CONFIG + extraConfig
                        + "}}",
                redis);
    }

    /** The one command sent since callout {@code from}, checked to be a release (another script than the decision). */
    private static RedisCallout onlyRelease(FakeHost host, int from, RedisCallout decision) {
        List<RedisCallout> sent = ShellFixture.commandsSince(host, from);
        assertEquals(1, sent.size(), "exactly one release: " + sent);
        RedisCallout release = sent.get(0);
        assertTrue(release.commandName().startsWith("EVAL"), release.toString());
        assertNotEquals(ShellFixture.scriptSha(decision), ShellFixture.scriptSha(release));
        return release;
    }

    @Test
    void aCompletedStreamReleasesOnceAndItsCountReturnsToZero() {
        FakeHost host = ShellFixture.started(glr(""));
        FakeStream stream = ShellFixture.send(host, ShellFixture.chat("s", "hello"));
        String chosen = stream.upstreamOverride().orElseThrow();
        assertEquals(Map.of(chosen, 1L), ShellFixture.inflight(redis));
        int before = host.redisCallouts().size();

        stream.sendResponseHeaders(List.of(Map.entry(":status", "200")), false);
        stream.sendResponseBody("data: done", true);

        assertTrue(stream.isEnded());
        onlyRelease(host, before, host.redisCallouts().get(0));
        assertEquals(Map.of(), ShellFixture.inflight(redis));
        assertEquals(1, host.metric("ailb.releases_sent"));
    }

    @Test
    void requestsInFlightSpreadAndAllComeBack() {
        FakeHost host = ShellFixture.started(glr(""));
        List<FakeStream> open = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            open.add(ShellFixture.send(host, ShellFixture.chat("s", "hello " + i)));
        }
        assertEquals(Map.of(A, 2L, B, 2L, C, 2L), ShellFixture.inflight(redis));

        open.forEach(FakeStream::complete);

        assertEquals(Map.of(), ShellFixture.inflight(redis));
        assertEquals(6, host.metric("ailb.releases_sent"));
    }

    @Test
    void aRequestOverTheCapIsAnswered429AndReleasesWhatItsCallHeld() {
        FakeHost host = ShellFixture.started(glr(",\"maxRequestCount\":1"));
        for (int i = 0; i < 3; i++) {
            ShellFixture.send(host, ShellFixture.chat("s", "fill " + i));
        }
        int before = host.redisCallouts().size();

        FakeStream over = ShellFixture.send(host, ShellFixture.chat("s", "one too many"));

        LocalResponse reply = over.localResponse().orElseThrow();
        assertEquals(429, reply.status());
        assertEquals("Exceeded maximum request limit from ai-load-balancer.", reply.bodyText());
        assertTrue(over.isEnded(), "a local reply ends the stream");
        assertEquals(Optional.empty(), over.upstreamOverride());
        onlyRelease(host, before + 1, host.redisCallouts().get(before));
        assertEquals(Map.of(A, 1L, B, 1L, C, 1L), ShellFixture.inflight(redis), "the rejected request counted nothing");
        assertEquals(1, host.metric("ailb.rejected.global_least_request"));
    }

    @Test
    void aStreamResetBeforeTheReplyReleasesOnceTheReplyHasArrived() {
        FakeHost host = ShellFixture.started(glr("").withManualDelivery());
        FakeStream stream = ShellFixture.sendGet(host);
        host.deliverPending();
        stream.complete();
        host.deliverPending();
        int before = host.redisCallouts().size();

        FakeStream reset = ShellFixture.sendGet(host);
        assertEquals(
                1L,
                ShellFixture.inflight(redis).values().stream()
                        .mapToLong(Long::longValue)
                        .sum(),
                "Redis counted the request before its reply was delivered");
        reset.reset();
        assertEquals(before + 1, host.redisCallouts().size(), "no release before the decision call's outcome");
        host.deliverPending();

        onlyRelease(host, before + 1, host.redisCallouts().get(before));
        assertEquals(Map.of(), ShellFixture.inflight(redis));
        assertEquals(Optional.empty(), reset.upstreamOverride(), "a late reply touches no stream");
    }

    @Test
    void aRefusedOverrideLeavesTheChoiceToTheClusterAndStillReleasesOnce() {
        FakeHost host = ShellFixture.started(glr(""));
        host.failCalls("proxy_set_upstream_override_host", WasmResult.BAD_ARGUMENT);
        FakeStream stream = ShellFixture.send(host, ShellFixture.chat("s", "hello"));

        assertTrue(stream.requestHeadersForwarded());
        assertEquals(Optional.empty(), stream.upstreamOverride());
        assertEquals(1, host.metric("ailb.override_failed"));
        String accessLog = stream.property("ai_log").orElseThrow();
        assertTrue(accessLog.contains("\"fallback\":\"override_failed\""), accessLog);
        int before = host.redisCallouts().size();

        stream.complete();

        onlyRelease(host, before, host.redisCallouts().get(0));
        assertEquals(Map.of(), ShellFixture.inflight(redis));
        assertFalse(host.metricNames().contains("ailb.routed.global_least_request"));
    }
}
