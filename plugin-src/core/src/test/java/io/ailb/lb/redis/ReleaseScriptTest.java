package io.ailb.lb.redis;

import static io.ailb.lb.redis.Scripts.KEYS;
import static io.ailb.lb.redis.Scripts.release;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ReleaseScriptTest {
    private TestRedis redis;

    @BeforeEach
    void connect() throws IOException {
        redis = TestRedis.connect();
    }

    @AfterEach
    void close() throws IOException {
        redis.close();
    }

    @Test
    void releaseDecrementsAPositiveCount() {
        redis.call("HSET", KEYS.inflight(), "a:1", "3");
        assertEquals(2, redis.run(release(KEYS, "a:1")).asLong());
        assertEquals("2", redis.call("HGET", KEYS.inflight(), "a:1").asString());
    }

    @Test
    void releaseOfTheLastRequestRemovesTheField() {
        redis.call("HSET", KEYS.inflight(), "a:1", "1");
        redis.run(release(KEYS, "a:1"));
        assertTrue(redis.call("HGET", KEYS.inflight(), "a:1").isNull());
    }

    @Test
    void releaseOfAMissingFieldCreatesNothing() {
        assertEquals(0, redis.run(release(KEYS, "a:1")).asLong());
        assertEquals(0, redis.call("EXISTS", KEYS.inflight()).asLong());
    }

    @Test
    void releaseNeverLowersAZeroOrNegativeCount() {
        redis.call("HSET", KEYS.inflight(), "a:1", "0", "b:1", "-2");
        redis.run(release(KEYS, "a:1"));
        redis.run(release(KEYS, "b:1"));
        assertEquals("0", redis.call("HGET", KEYS.inflight(), "a:1").asString());
        assertEquals("-2", redis.call("HGET", KEYS.inflight(), "b:1").asString());
    }

    @Test
    void aSelectFollowedByItsReleaseLeavesNoCount() {
        InflightSelection selection = InflightSelection.parse(redis.run(Scripts.select(Scripts.list("a:1"))));
        redis.run(release(KEYS, selection.host()));
        redis.run(release(KEYS, selection.host()));
        assertTrue(redis.call("HGET", KEYS.inflight(), "a:1").isNull());
    }
}
