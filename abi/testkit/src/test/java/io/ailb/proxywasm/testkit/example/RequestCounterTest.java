package io.ailb.proxywasm.testkit.example;

import static io.ailb.proxywasm.testkit.FakeStream.headers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.resp.RespValue;
import io.ailb.proxywasm.testkit.FakeHost;
import io.ailb.proxywasm.testkit.FakeStream;
import io.ailb.proxywasm.testkit.RealRedis;
import io.ailb.proxywasm.testkit.RedisAnswer;
import io.ailb.proxywasm.testkit.RedisResponder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The example of the testkit's README: the same code, so the README cannot drift from code that runs. */
class RequestCounterTest {

    @Test
    void requestsAboveTheLimitAreAnswered429() {
        try (RealRedis redis = RealRedis.start()) {
            redis.flushAll();
            FakeHost host = new FakeHost().withRedisCluster(RequestCounter.REDIS, redis);
            assertTrue(host.start(RequestCounter::main));

            for (int i = 0; i < RequestCounter.LIMIT; i++) {
                FakeStream stream = host.newStream();
                stream.sendRequestHeaders(headers(":method", "GET", ":path", "/"), true);
                assertTrue(stream.requestHeadersForwarded());
            }
            FakeStream over = host.newStream();
            over.sendRequestHeaders(headers(":method", "GET", ":path", "/"), true);

            assertEquals(429, over.localResponse().orElseThrow().status());
            assertEquals(RespValue.bulkString("3"), redis.command("GET", "requests"));
        }
    }

    @Test
    void aRedisFailureLetsTheRequestThrough() {
        FakeHost host = new FakeHost()
                .withRedisCluster(RequestCounter.REDIS, RedisResponder.always(RedisAnswer.networkError()));
        assertTrue(host.start(RequestCounter::main));

        FakeStream stream = host.newStream();
        stream.sendRequestHeaders(headers(":method", "GET", ":path", "/"), true);

        assertTrue(stream.requestHeadersForwarded());
        assertEquals(List.of("INCR", "requests"), host.redisCallouts().get(0).command());
    }

    @Test
    void aReplyAfterTheClientLeftTouchesNoStream() {
        FakeHost host =
                new FakeHost().withRedisCluster(RequestCounter.REDIS, RedisResponder.always(RedisAnswer.pending()));
        assertTrue(host.start(RequestCounter::main));
        FakeStream stream = host.newStream();
        stream.sendRequestHeaders(headers(":method", "GET", ":path", "/"), true);

        stream.reset();
        host.redisCallouts().get(0).deliver(RedisAnswer.reply(RespValue.integer(99)));

        assertFalse(stream.localResponse().isPresent());
    }
}
