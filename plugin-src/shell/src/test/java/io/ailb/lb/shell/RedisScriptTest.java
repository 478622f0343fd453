package io.ailb.lb.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.proxywasm.testkit.FakeHost;
import io.ailb.proxywasm.testkit.FakeStream;
import io.ailb.proxywasm.testkit.RealRedis;
import io.ailb.proxywasm.testkit.RedisCallout;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Scripts travel as EVALSHA; a server that does not hold the script (new, restarted) gets it once as EVAL. */
class RedisScriptTest {
    private static final RealRedis redis = ShellFixture.redis();

    @BeforeEach
    void emptyRedis() {
        redis.flushAll();
    }

    @Test
    void theFirstCallMeetsNoscriptAndIsSentAgainAsEvalOfTheSameScript() {
        FakeHost host = ShellFixture.started(ShellFixture.host(ShellFixture.GLOBAL_LEAST_REQUEST, redis));

        FakeStream stream = ShellFixture.sendGet(host);

        List<RedisCallout> calls = host.redisCallouts();
        assertEquals(
                List.of("EVALSHA", "EVAL"),
                List.of(calls.get(0).commandName(), calls.get(1).commandName()));
        assertEquals("NOSCRIPT", calls.get(0).answer().orElseThrow().value().errorCode());
        String script = calls.get(1).command().get(1);
        assertEquals(
                ShellFixture.scriptSha(calls.get(0)),
                ShellFixture.sha1(script),
                "EVAL carries the script EVALSHA named");
        assertEquals(
                calls.get(0).command().subList(2, calls.get(0).command().size()),
                calls.get(1).command().subList(2, calls.get(1).command().size()),
                "same keys and arguments");
        assertEquals(2, calls.size());
        String chosen = stream.upstreamOverride().orElseThrow();
        assertEquals(Map.of(chosen, 1L), ShellFixture.inflight(redis), "the script ran once");
    }

    @Test
    void onceTheServerHoldsTheScriptOnlyEvalshaIsSent() {
        FakeHost host = ShellFixture.started(ShellFixture.host(ShellFixture.GLOBAL_LEAST_REQUEST, redis));
        ShellFixture.sendGet(host);
        int before = host.redisCallouts().size();

        FakeStream second = ShellFixture.sendGet(host);

        List<RedisCallout> calls =
                host.redisCallouts().subList(before, host.redisCallouts().size());
        assertEquals(1, calls.size(), calls.toString());
        assertEquals("EVALSHA", calls.get(0).commandName());
        assertTrue(second.upstreamOverride().isPresent());
        assertEquals(
                2L,
                ShellFixture.inflight(redis).values().stream()
                        .mapToLong(Long::longValue)
                        .sum());
    }

    @Test
    void afterARedisRestartTheScriptIsSentAgain() {
        FakeHost host = ShellFixture.started(ShellFixture.host(ShellFixture.GLOBAL_LEAST_REQUEST, redis));
        ShellFixture.sendGet(host).complete();
        redis.flushAll();
        int before = host.redisCallouts().size();

        FakeStream stream = ShellFixture.sendGet(host);

        List<RedisCallout> calls =
                host.redisCallouts().subList(before, host.redisCallouts().size());
        assertEquals(
                List.of("EVALSHA", "EVAL"),
                List.of(calls.get(0).commandName(), calls.get(1).commandName()));
        assertTrue(stream.upstreamOverride().isPresent());
    }

    @Test
    void theReleaseIsAnotherScriptWithTheSameFallbackToEval() {
        FakeHost host = ShellFixture.started(ShellFixture.host(ShellFixture.GLOBAL_LEAST_REQUEST, redis));
        FakeStream stream = ShellFixture.sendGet(host);
        int before = host.redisCallouts().size();

        stream.complete();

        List<RedisCallout> calls =
                host.redisCallouts().subList(before, host.redisCallouts().size());
        assertEquals(
                List.of("EVALSHA", "EVAL"),
                List.of(calls.get(0).commandName(), calls.get(1).commandName()));
        assertNotEquals(ShellFixture.scriptSha(host.redisCallouts().get(0)), ShellFixture.scriptSha(calls.get(0)));
        assertEquals(Map.of(), ShellFixture.inflight(redis));
    }
}
