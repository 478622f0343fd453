package io.ailb.lb.policy.inflight;

import static io.ailb.lb.policy.inflight.Scripts.KEYS;
import static io.ailb.lb.policy.inflight.Scripts.list;
import static io.ailb.lb.policy.inflight.Scripts.release;
import static io.ailb.lb.policy.inflight.Scripts.select;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.lb.redis.FreshRedisTest;
import org.junit.jupiter.api.Test;

class ReleaseScriptTest extends FreshRedisTest {
    private String field(String host) {
        return redis.call("HGET", KEYS.inflight(), host).asString();
    }

    /** A lease taken by select.lua on the only healthy host {@code a:1}. */
    private String leaseOnA() {
        String lease = Scripts.nextLease();
        assertEquals(
                "a:1",
                InflightSelection.parse(redis.run(select(list("a:1"), lease))).host());
        return lease;
    }

    @Test
    void releasingALeaseDecrementsItsHost() {
        redis.call("HSET", KEYS.inflight(), "a:1", "2");
        String lease = leaseOnA();
        assertEquals("3", field("a:1"));

        assertEquals(2, redis.run(release(KEYS, lease)).asLong());
        assertEquals("2", field("a:1"));
    }

    @Test
    void aLeaseIsReleasedOnceHoweverOftenItsReleaseIsSent() {
        redis.call("HSET", KEYS.inflight(), "a:1", "2");
        String lease = leaseOnA();

        redis.run(release(KEYS, lease));
        assertEquals(-1, redis.run(release(KEYS, lease)).asLong());
        redis.run(release(KEYS, lease));

        assertEquals("2", field("a:1"), "the other requests' counts are untouched");
    }

    @Test
    void releaseRemovesTheLeaseFromBothLeaseKeys() {
        String lease = leaseOnA();
        redis.run(release(KEYS, lease));
        assertTrue(redis.call("ZSCORE", KEYS.leases(), lease).isNull());
        assertTrue(redis.call("HGET", KEYS.leaseHosts(), lease).isNull());
    }

    @Test
    void releaseOfTheLastRequestRemovesTheField() {
        String lease = leaseOnA();
        redis.run(release(KEYS, lease));
        assertTrue(redis.call("HGET", KEYS.inflight(), "a:1").isNull());
    }

    @Test
    void releaseOfAnUnknownLeaseChangesNothing() {
        redis.call("HSET", KEYS.inflight(), "a:1", "3");
        String other = leaseOnA();

        assertEquals(-1, redis.run(release(KEYS, "00000000deadbeef")).asLong());

        assertEquals("4", field("a:1"));
        assertEquals("a:1", redis.call("HGET", KEYS.leaseHosts(), other).asString());
        assertEquals(1, redis.call("ZCARD", KEYS.leases()).asLong());
    }

    @Test
    void releaseOnAnEmptyRedisCreatesNoKey() {
        assertEquals(-1, redis.run(release(KEYS, "00000000deadbeef")).asLong());
        assertEquals(0, redis.call("DBSIZE").asLong());
    }

    @Test
    void aLeaseWhoseHashExpiredReleasesWithoutRecreatingTheHash() {
        String lease = leaseOnA();
        redis.call("DEL", KEYS.inflight());
        assertEquals(0, redis.run(release(KEYS, lease)).asLong());
        assertEquals(0, redis.call("EXISTS", KEYS.inflight()).asLong());
    }

    @Test
    void releaseNeverLowersAZeroOrNegativeCount() {
        String onA = leaseOnA();
        redis.call("HSET", KEYS.inflight(), "a:1", "0");
        redis.run(release(KEYS, onA));
        assertEquals("0", field("a:1"));

        String again = leaseOnA();
        redis.call("HSET", KEYS.inflight(), "a:1", "-2");
        redis.run(release(KEYS, again));
        assertEquals("-2", field("a:1"));
    }

    @Test
    void aLeaseHealedAfterItExpiredIsNotGivenBackTwice() {
        String crashed = leaseOnA();
        redis.call("ZADD", KEYS.leases(), "XX", "1", crashed);
        String live = leaseOnA();
        assertEquals("1", field("a:1"), "the expired lease was healed, the new one counted");

        redis.run(release(KEYS, crashed));
        assertEquals("1", field("a:1"), "the late release of the healed lease changes nothing");
        redis.run(release(KEYS, live));
        assertTrue(redis.call("HGET", KEYS.inflight(), "a:1").isNull());
    }
}
