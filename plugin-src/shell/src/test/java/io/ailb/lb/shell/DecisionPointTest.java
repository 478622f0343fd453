package io.ailb.lb.shell;

import static io.ailb.lb.shell.ShellFixture.A;
import static io.ailb.lb.shell.ShellFixture.B;
import static io.ailb.lb.shell.ShellFixture.C;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.proxywasm.bindings.DataAction;
import io.ailb.proxywasm.bindings.HeaderAction;
import io.ailb.proxywasm.testkit.FakeHost;
import io.ailb.proxywasm.testkit.FakeStream;
import io.ailb.proxywasm.testkit.HigressHosts;
import io.ailb.proxywasm.testkit.RealRedis;
import io.ailb.proxywasm.testkit.RedisAnswer;
import io.ailb.proxywasm.testkit.RedisCallout;
import io.ailb.proxywasm.testkit.RedisResponder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Where the shell decides: at the request headers when no body will come or none is needed, at the end of the body
 * when the policy reads it — never holding a request for a body that will not arrive.
 */
class DecisionPointTest {
    private static final String BUSY =
            "vllm:num_requests_waiting 9\nvllm:num_requests_running 9\nvllm:gpu_cache_usage_perc 0.9\n";
    private static final String IDLE =
            "vllm:num_requests_waiting 0\nvllm:num_requests_running 1\nvllm:gpu_cache_usage_perc 0.1\n";
    private static final String MEDIUM =
            "vllm:num_requests_waiting 3\nvllm:num_requests_running 4\nvllm:gpu_cache_usage_perc 0.5\n";
    private static final String LEAST_BUSY = "{\"lb_policy\":\"least_busy\",\"lb_config\":{}}";

    private static final RealRedis redis = ShellFixture.redis();

    /** least_busy with B the idlest backend by the metrics in Higress's host info; no Redis involved. */
    private static FakeHost leastBusy() {
        FakeHost host = new FakeHost()
                .withPluginConfig(LEAST_BUSY)
                .withUpstreamHosts(List.of(
                        HigressHosts.withMetrics(A, BUSY),
                        HigressHosts.withMetrics(B, IDLE),
                        HigressHosts.withMetrics(C, MEDIUM)));
        return ShellFixture.started(host);
    }

    @Test
    void aGetIsDecidedAtItsHeaders() {
        FakeStream stream = ShellFixture.stream(leastBusy());

        assertEquals(HeaderAction.CONTINUE, stream.sendRequestHeaders(ShellFixture.get(), true));

        assertEquals(Optional.of(B), stream.upstreamOverride());
        assertFalse(stream.upstreamOverrideAfterRouting());
        assertTrue(stream.requestHeadersForwarded());
        assertFalse(stream.isRequestPaused(), "nothing held: no body is coming");
    }

    @Test
    void aPostWithContentLengthZeroIsDecidedAtItsHeaders() {
        FakeStream stream = ShellFixture.stream(leastBusy());

        assertEquals(HeaderAction.CONTINUE, stream.sendRequestHeaders(ShellFixture.post("content-length", "0"), true));

        assertEquals(Optional.of(B), stream.upstreamOverride());
        assertFalse(stream.isRequestPaused());
    }

    @Test
    void aPolicyThatReadsTheBodyDecidesAtItsEndWhateverTheChunks() {
        FakeStream stream = ShellFixture.stream(leastBusy());
        String body = ShellFixture.chat("you are terse", "hello");

        assertEquals(HeaderAction.STOP_ITERATION, stream.sendRequestHeaders(ShellFixture.post(), false));
        assertEquals(DataAction.STOP_ITERATION_AND_BUFFER, stream.sendRequestBody(body.substring(0, 10), false));
        assertEquals(DataAction.STOP_ITERATION_AND_BUFFER, stream.sendRequestBody(body.substring(10, 30), false));
        assertEquals(Optional.empty(), stream.upstreamOverride(), "not decided before the end of the body");
        assertEquals(DataAction.CONTINUE, stream.sendRequestBody(body.substring(30), true));

        assertEquals(Optional.of(B), stream.upstreamOverride());
        assertFalse(stream.upstreamOverrideAfterRouting());
        assertEquals(body, new String(stream.forwardedRequestBody(), StandardCharsets.UTF_8));
    }

    @Test
    void aRedisPolicyThatReadsTheBodyCallsRedisOnceTheBodyIsComplete() {
        redis.flushAll();
        FakeHost host = ShellFixture.started(ShellFixture.host(
                "{\"lb_policy\":\"prefix_cache\",\"lb_config\":{" + ShellFixture.REDIS_CONFIG + "}}", redis));
        FakeStream stream = ShellFixture.stream(host);
        String body = ShellFixture.chat("system", "question");

        stream.sendRequestHeaders(ShellFixture.post(), false);
        stream.sendRequestBody(body.substring(0, 25), false);
        assertEquals(List.of(), host.redisCallouts(), "nothing sent before the body is complete");
        stream.sendRequestBody(body.substring(25), true);

        List<RedisCallout> sent = ShellFixture.commandsSince(host, 0);
        assertEquals(1, sent.size(), host.redisCallouts().toString());
        assertTrue(stream.upstreamOverride().isPresent(), "routed by the script's reply");
        assertFalse(stream.upstreamOverrideAfterRouting());
        assertTrue(stream.requestHeadersForwarded(), "resumed after the reply");
        assertEquals(body, new String(stream.forwardedRequestBody(), StandardCharsets.UTF_8));
    }

    @Test
    void whileRedisHasNotAnsweredTheRequestIsHeld() {
        FakeHost host = ShellFixture.started(
                ShellFixture.host(ShellFixture.GLOBAL_LEAST_REQUEST, RedisResponder.always(RedisAnswer.pending())));
        FakeStream stream = ShellFixture.stream(host);

        assertEquals(HeaderAction.STOP_ITERATION, stream.sendRequestHeaders(ShellFixture.post(), false));
        // Held with the client paused (watermark), so a body past the buffer limit is not refused with a 413.
        assertEquals(DataAction.STOP_ITERATION_AND_WATERMARK, stream.sendRequestBody("{\"model\":\"q\"}", true));

        assertTrue(stream.isRequestPaused());
        assertFalse(stream.requestHeadersForwarded());
        assertEquals(1, host.redisCallouts().size(), "decided at the headers: global_least_request reads no body");
    }
}
