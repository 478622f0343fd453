package io.ailb.lb.policy.clustermetrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.resp.RespValue;
import io.ailb.lb.policy.inflight.InflightSelection;
import io.ailb.lb.redis.FreshRedisTest;
import io.ailb.lb.redis.LuaResources;
import io.ailb.lb.redis.RedisCommand;
import io.ailb.lb.redis.RedisKeys;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** cluster_select.lua against a real Redis, and release.lua giving its counts back. */
class ClusterSelectScriptTest extends FreshRedisTest {
    private static final RedisKeys KEYS = RedisKeys.forServices("test", "route-a");
    private static long leases;

    private static RedisCommand select(String lease, int leaseTtl, String... triples) {
        List<String> args = new ArrayList<>(List.of("0", lease, Integer.toString(leaseTtl), "1800"));
        args.addAll(List.of(triples));
        return RedisCommand.script(
                ClusterMetricsScripts.SELECT, List.of(KEYS.inflight(), KEYS.leases(), KEYS.leaseHosts()), args);
    }

    private static String nextLease() {
        return InflightSelection.leaseId(0x2000_0000_0000L + leases++);
    }

    private long inflight(String service) {
        RespValue value = redis.call("HGET", KEYS.inflight(), service);
        return value.isNull() ? 0 : Long.parseLong(value.asString());
    }

    @Test
    void theEmbeddedScriptIsTheAssembledResourceAndRedisCompilesIt() {
        assertEquals(
                LuaResources.script(ClusterSelectScriptTest.class, "cluster_select")
                        .source(),
                ClusterMetricsScripts.SELECT.source());
        assertEquals(
                ClusterMetricsScripts.SELECT.sha1(),
                redis.call("SCRIPT", "LOAD", ClusterMetricsScripts.SELECT.source())
                        .asString());
    }

    @Test
    void theLowestScoreTimesEveryGatewaysInFlightWinsAndIsCounted() {
        redis.call("HSET", KEYS.inflight(), "a", "3");
        // a: 10 x (3 + 1) = 40; b: 25 x (0 + 1) = 25.
        RespValue reply = redis.run(select(nextLease(), 600, "a", "10", "0", "b", "25", "0"));
        assertEquals("b", reply.elements().get(0).asString());
        assertEquals(1, reply.elements().get(1).asLong());
        // Now b: 25 x 2 = 50 > a: 40.
        assertEquals(
                "a",
                redis.run(select(nextLease(), 600, "a", "10", "0", "b", "25", "0"))
                        .elements()
                        .get(0)
                        .asString());
        assertEquals(4, inflight("a"));
    }

    @Test
    void aCoolingServiceIsChargedItsExtraInFlight() {
        // a: 1 x (0 + 1 + 5) = 6; b: 2 x (0 + 1) = 2.
        assertEquals(
                "b",
                redis.run(select(nextLease(), 600, "a", "1", "5", "b", "2", "0"))
                        .elements()
                        .get(0)
                        .asString());
    }

    @Test
    void releaseGivesTheCountBackOnceAndAnExpiredLeaseHeals() throws InterruptedException {
        String lease = nextLease();
        redis.run(select(lease, 600, "a", "1", "0"));
        assertEquals(1, inflight("a"));
        redis.run(InflightSelection.release(KEYS, lease));
        redis.run(InflightSelection.release(KEYS, lease));
        assertEquals(0, inflight("a"));

        redis.run(select(nextLease(), 1, "a", "1", "0"));
        assertEquals(1, inflight("a"));
        Thread.sleep(2_100);
        // The next call heals the expired lease before counting its own request.
        redis.run(select(nextLease(), 600, "a", "1", "0"));
        assertEquals(1, inflight("a"));
    }

    @Test
    void aRepeatedLeaseIsRoutedButNotCountedTwice() {
        String lease = nextLease();
        redis.run(select(lease, 600, "a", "1", "0"));
        redis.run(select(lease, 600, "a", "1", "0"));
        assertEquals(1, inflight("a"));
        assertTrue(redis.call("TTL", KEYS.inflight()).asLong() > 0, "the keys expire");
        assertFalse(redis.call("ZSCORE", KEYS.leases(), lease).isNull());
    }
}
