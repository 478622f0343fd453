package io.ailb.lb.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.resp.RespValue;
import io.ailb.proxywasm.Log;
import io.ailb.proxywasm.testkit.FakeHost;
import io.ailb.proxywasm.testkit.FakeStream;
import io.ailb.proxywasm.testkit.RedisAnswer;
import io.ailb.proxywasm.testkit.RedisCallout;
import io.ailb.proxywasm.testkit.RedisResponder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Whatever Redis does wrong — an error reply, a network failure, a reply that never comes, a reply that makes no
 * sense — the request goes on to the cluster's own load balancer, and what the decision call took is released once.
 */
class RedisFaultTest {

    private static FakeHost glr(RedisResponder redis) {
        return ShellFixture.started(ShellFixture.host(ShellFixture.GLOBAL_LEAST_REQUEST, redis));
    }

    private static void assertLeftToTheCluster(FakeStream stream) {
        assertTrue(stream.requestHeadersForwarded(), "the request went on");
        assertFalse(stream.isRequestPaused());
        assertEquals(Optional.empty(), stream.upstreamOverride(), "the cluster's load balancer decides");
    }

    @Test
    void anErrorReplyFallsBackToTheClustersLoadBalancer() {
        FakeHost host = glr(RedisResponder.always(RedisAnswer.error("ERR Error running script")));

        FakeStream stream = ShellFixture.sendGet(host);

        assertLeftToTheCluster(stream);
        assertEquals(1, host.metric("ailb.fallback.redis_error"));
        assertEquals(
                List.of("ai-load-balancer: redis error reply: ERR Error running script"), host.logs(Log.Level.WARN));
        String accessLog = stream.property("ai_log").orElseThrow();
        assertTrue(accessLog.contains("\"fallback\":\"redis_error\""), accessLog);
        assertTrue(accessLog.contains("\"lb_policy\":\"global_least_request\""), accessLog);
    }

    @Test
    void aNetworkFailureFallsBackToTheClustersLoadBalancer() {
        FakeHost host = glr(RedisResponder.always(RedisAnswer.networkError()));

        FakeStream stream = ShellFixture.sendGet(host);

        assertLeftToTheCluster(stream);
        assertEquals(1, host.metric("ailb.fallback.redis_error"));
        assertEquals(
                List.of("ai-load-balancer: redis call failed: redis status NETWORK_ERROR"), host.logs(Log.Level.WARN));
    }

    @Test
    void aHeldPostGoesOnWithItsWholeBodyWhenRedisFails() {
        FakeHost host = glr(RedisResponder.always(RedisAnswer.pending()));
        FakeStream stream = ShellFixture.stream(host);
        String body = ShellFixture.chat("s", "hello");
        stream.sendRequestHeaders(ShellFixture.post(), false);
        stream.sendRequestBody(body, true);
        assertTrue(stream.isRequestPaused());

        host.redisCallouts().get(0).deliver(RedisAnswer.networkError());

        assertLeftToTheCluster(stream);
        assertEquals(body, new String(stream.forwardedRequestBody(), StandardCharsets.UTF_8));
    }

    @Test
    void aStreamResetBeforeTheReplyIsNotTouchedAndItsReleaseWaitsForTheCallsOutcome() {
        FakeHost host = glr(RedisResponder.always(RedisAnswer.pending()));
        FakeStream stream = ShellFixture.sendGet(host);
        RedisCallout decision = host.redisCallouts().get(0);

        stream.reset();
        assertEquals(1, host.redisCallouts().size(), "no release may overtake the count it gives back");
        decision.deliver(RedisAnswer.networkError());

        List<RedisCallout> releases = ShellFixture.commandsSince(host, 1);
        assertEquals(1, releases.size(), host.redisCallouts().toString());
        assertNotEquals(ShellFixture.scriptSha(decision), ShellFixture.scriptSha(releases.get(0)));
        assertEquals(Optional.empty(), stream.upstreamOverride());
        assertFalse(stream.localResponse().isPresent());
    }

    @Test
    void aReplyThatIsNoSelectionFallsBack() {
        FakeHost host = glr(RedisResponder.always(RedisAnswer.reply(RespValue.integer(5))));

        FakeStream stream = ShellFixture.sendGet(host);

        assertLeftToTheCluster(stream);
        assertEquals(1, host.metric("ailb.fallback.redis_bad_reply"));
    }

    @Test
    void anUndecodableReplyFallsBack() {
        FakeHost host = glr(RedisResponder.always(RedisAnswer.raw("?junk\r\n".getBytes(StandardCharsets.UTF_8))));

        FakeStream stream = ShellFixture.sendGet(host);

        assertLeftToTheCluster(stream);
        assertEquals(1, host.metric("ailb.fallback.redis_error"));
    }

    @Test
    void anEvalAfterNoscriptThatFailsFallsBack() {
        FakeHost host = glr(RedisResponder.inOrder(RedisAnswer.noScript(), RedisAnswer.networkError()));

        FakeStream stream = ShellFixture.sendGet(host);

        assertLeftToTheCluster(stream);
        assertEquals(
                List.of("EVALSHA", "EVAL"),
                List.of(
                        host.redisCallouts().get(0).commandName(),
                        host.redisCallouts().get(1).commandName()));
    }

    @Test
    void aRedisServiceTheGatewayDoesNotKnowFallsBackWithoutACall() {
        FakeHost host = ShellFixture.started(ShellFixture.host(
                "{\"lb_policy\":\"global_least_request\","
                        + "\"lb_config\":{\"serviceFQDN\":\"missing.static\",\"servicePort\":6379}}",
                RedisResponder.always(RedisAnswer.pending())));

        FakeStream stream = ShellFixture.sendGet(host);

        assertLeftToTheCluster(stream);
        assertEquals(List.of(), host.redisCallouts());
        assertEquals(1, host.metric("ailb.fallback.redis_error"));
        assertTrue(
                host.logs(Log.Level.WARN).get(0).startsWith("ai-load-balancer: redis init failed"),
                host.logs().toString());
    }
}
