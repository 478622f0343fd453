package io.ailb.lb.policy.inflight;

import static io.ailb.lb.policy.inflight.Scripts.KEYS;
import static io.ailb.lb.policy.inflight.Scripts.list;
import static io.ailb.lb.policy.inflight.Scripts.select;
import static io.ailb.lb.policy.inflight.Scripts.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.resp.RespValue;
import io.ailb.lb.redis.FreshRedisTest;
import io.ailb.lb.redis.RedisCommand;
import io.ailb.lb.redis.RedisKeys;
import io.ailb.lb.util.Rng;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SelectScriptTest extends FreshRedisTest {
    private static final List<String> NONE = Collections.emptyList();

    private InflightSelection run(RedisCommand command) {
        RespValue reply = redis.run(command);
        InflightSelection selection = InflightSelection.parse(reply);
        assertTrue(selection != null, "unexpected reply " + reply);
        return selection;
    }

    private void counts(String... hostCountPairs) {
        for (int i = 0; i < hostCountPairs.length; i += 2) {
            redis.call("HSET", KEYS.inflight(), hostCountPairs[i], hostCountPairs[i + 1]);
        }
    }

    private String field(String host) {
        return redis.call("HGET", KEYS.inflight(), host).asString();
    }

    @Test
    void choosesTheHealthyHostWithTheFewestInFlightRequests() {
        counts("a:1", "3", "b:1", "1", "c:1", "2");
        InflightSelection selection = run(select(list("a:1", "b:1", "c:1")));
        assertEquals("b:1", selection.host());
        assertEquals(2, selection.count());
        assertEquals("2", field("b:1"));
    }

    @Test
    void countsAHostWithoutAFieldAsIdle() {
        counts("a:1", "1");
        assertEquals("b:1", run(select(list("a:1", "b:1"))).host());
    }

    @Test
    void neverChoosesAnUnhealthyHostEvenWhenItIsIdle() {
        counts("a:1", "5");
        InflightSelection selection = run(select(KEYS, NONE, list("a:1"), list("u:1"), settings(0, 3600), 7));
        assertEquals("a:1", selection.host());
    }

    @Test
    void breaksTiesUniformlyUsingTheRandomArgument() {
        List<String> hosts = list("a:1", "b:1", "c:1", "d:1");
        Map<String, Integer> wins = new HashMap<>();
        Rng rng = new Rng(42);
        for (int i = 0; i < 4000; i++) {
            redis.call("DEL", KEYS.inflight());
            String host = run(select(
                            KEYS, NONE, hosts, NONE, settings(0, 3600), rng.nextInt(InflightSelection.randomBound())))
                    .host();
            wins.merge(host, 1, Integer::sum);
        }
        for (String host : hosts) {
            int n = wins.getOrDefault(host, 0);
            assertTrue(n > 850 && n < 1150, host + " won " + n + " of 4000: " + wins);
        }
    }

    @Test
    void rejectsAsFullWithoutCountingWhenTheLeastLoadedHostIsAtMaxRequestCount() {
        counts("a:1", "2", "b:1", "3");
        InflightSelection selection = run(select(KEYS, NONE, list("a:1", "b:1"), NONE, settings(2, 3600), 0));
        assertTrue(selection.full());
        assertEquals(2, selection.count());
        assertEquals("2", field("a:1"));
        assertEquals("3", field("b:1"));
    }

    @Test
    void admitsARequestWhileTheLeastLoadedHostIsBelowMaxRequestCount() {
        counts("a:1", "2", "b:1", "1");
        InflightSelection selection = run(select(KEYS, NONE, list("a:1", "b:1"), NONE, settings(2, 3600), 0));
        assertFalse(selection.full());
        assertEquals("b:1", selection.host());
        assertEquals(2, selection.count());
    }

    @Test
    void cleanupDropsHostsThatLeftTheClusterAndNonPositiveCounts() {
        counts("a:1", "1", "c:1", "2", "u:1", "4", "u:2", "0", "neg:1", "-3", "gone:1", "5");
        run(select(KEYS, NONE, list("a:1", "c:1", "neg:1"), list("u:1", "u:2"), settings(0, 3600), 0));
        Map<String, String> all = hash();
        Map<String, String> expected = new HashMap<>();
        expected.put("a:1", "1");
        expected.put("c:1", "2");
        expected.put("u:1", "4");
        expected.put("neg:1", "1");
        assertEquals(expected, all);
    }

    @Test
    void cleanupRunsAtMostOncePerCleanInterval() {
        run(select(KEYS, NONE, list("a:1"), NONE, settings(0, 3600), 0));
        counts("gone:1", "5");
        run(select(KEYS, NONE, list("a:1"), NONE, settings(0, 3600), 0));
        assertEquals("5", field("gone:1"));
    }

    @Test
    void aZeroCleanIntervalCleansOnEveryCall() {
        run(select(KEYS, NONE, list("a:1"), NONE, settings(0, 0), 0));
        counts("gone:1", "5");
        run(select(KEYS, NONE, list("a:1"), NONE, settings(0, 0), 0));
        assertTrue(redis.call("HGET", KEYS.inflight(), "gone:1").isNull());
    }

    @Test
    void everyKeyTheScriptWritesHasATtl() {
        run(select(KEYS, list("H1", "H2"), list("a:1"), NONE, settings(0, 600), 0));
        assertTtlBetween(KEYS.inflight(), 3500, 3600);
        assertTtlBetween(KEYS.cleaned(), 500, 600);
        assertTtlBetween(KEYS.leases(), 3500, 3600);
        assertTtlBetween(KEYS.leaseHosts(), 3500, 3600);
        assertTtlBetween(KEYS.prefix("H1"), 1700, 1800);
        assertTtlBetween(KEYS.prefix("H2"), 1700, 1800);
    }

    @Test
    void anIncrementRecordsItsLeaseWithTheHostAndAnExpiryOnTheRedisClock() {
        counts("a:1", "1");
        long before = redisSeconds();
        InflightSelection selection =
                run(select(KEYS, NONE, list("a:1", "b:1"), NONE, settings(0, 3600), 0, "0123456789abcdef"));
        long after = redisSeconds();

        assertEquals("b:1", selection.host());
        assertEquals(
                "b:1", redis.call("HGET", KEYS.leaseHosts(), "0123456789abcdef").asString());
        long expiry = Long.parseLong(
                redis.call("ZSCORE", KEYS.leases(), "0123456789abcdef").asString());
        assertTrue(expiry >= before + Scripts.LEASE_TTL && expiry <= after + Scripts.LEASE_TTL, "expiry " + expiry);
        assertEquals(1, redis.call("ZCARD", KEYS.leases()).asLong());
    }

    @Test
    void aFullReplyCountsNothingAndWritesNoLease() {
        counts("a:1", "2");
        assertTrue(run(select(KEYS, NONE, list("a:1"), NONE, settings(2, 3600), 0, "00000000000000aa"))
                .full());
        assertEquals(0, redis.call("EXISTS", KEYS.leases()).asLong());
        assertEquals(0, redis.call("EXISTS", KEYS.leaseHosts()).asLong());
        assertEquals("2", field("a:1"));
    }

    @Test
    void aLeaseIdAlreadyHeldIsNotCountedAgain() {
        InflightSelection first = run(select(list("a:1"), "00000000000000bb"));
        InflightSelection again = run(select(list("a:1"), "00000000000000bb"));
        assertEquals(1, first.count());
        assertEquals("a:1", again.host());
        assertEquals(1, again.count());
        assertEquals("1", field("a:1"));
        redis.run(Scripts.release(KEYS, "00000000000000bb"));
        assertTrue(redis.call("HGET", KEYS.inflight(), "a:1").isNull(), "one lease, one count, one release");
    }

    @Test
    void anExpiredLeaseIsGivenBackByTheNextSelect() {
        // A gateway counted a request on a:1 and crashed: its release never comes.
        run(select(KEYS, NONE, list("a:1"), NONE, settings(0, 3600), 0, "00000000000000cc"));
        counts("b:1", "1");
        assertEquals("1", field("a:1"));
        expire("00000000000000cc");

        InflightSelection next = run(select(KEYS, NONE, list("a:1", "b:1"), NONE, settings(0, 3600), 0));

        assertEquals("a:1", next.host(), "the healed host is idle again, so it wins");
        assertEquals(1, next.count());
        assertTrue(redis.call("ZSCORE", KEYS.leases(), "00000000000000cc").isNull());
        assertTrue(redis.call("HGET", KEYS.leaseHosts(), "00000000000000cc").isNull());
    }

    @Test
    void anExpiredLeaseIsHealedEvenWhenTheCallIsAnsweredFull() {
        run(select(KEYS, NONE, list("a:1"), NONE, settings(1, 3600), 0, "00000000000000dd"));
        expire("00000000000000dd");
        InflightSelection next = run(select(KEYS, NONE, list("a:1"), NONE, settings(1, 3600), 0));
        assertFalse(next.full(), "the leaked count no longer blocks the host");
        assertEquals(1, next.count());
    }

    @Test
    void aLeaseThatHasNotExpiredKeepsItsCount() {
        run(select(KEYS, NONE, list("a:1"), NONE, settings(0, 3600), 0));
        run(select(KEYS, NONE, list("a:1"), NONE, settings(0, 3600), 0));
        assertEquals("2", field("a:1"));
        assertEquals(2, redis.call("ZCARD", KEYS.leases()).asLong());
    }

    @Test
    void healingGivesBackAtMostOneHundredLeasesPerCall() {
        // 150 leases of crashed gateways, all long expired, all holding a:1.
        String[] zadd = new String[2 + 2 * 150];
        String[] hset = new String[2 + 2 * 150];
        zadd[0] = "ZADD";
        zadd[1] = KEYS.leases();
        hset[0] = "HSET";
        hset[1] = KEYS.leaseHosts();
        for (int i = 0; i < 150; i++) {
            zadd[2 + 2 * i] = Integer.toString(1 + i);
            zadd[3 + 2 * i] = "old" + i;
            hset[2 + 2 * i] = "old" + i;
            hset[3 + 2 * i] = "a:1";
        }
        redis.call(zadd);
        redis.call(hset);
        counts("a:1", "150");

        run(select(KEYS, NONE, list("a:1", "b:1"), NONE, settings(0, 3600), 0));
        assertEquals("50", field("a:1"));
        assertEquals(50 + 1, redis.call("ZCARD", KEYS.leases()).asLong(), "50 old leases and the new one");

        run(select(KEYS, NONE, list("a:1", "b:1"), NONE, settings(0, 3600), 0));
        assertEquals(2, redis.call("ZCARD", KEYS.leases()).asLong(), "only the two live leases are left");
        assertEquals(2, redis.call("HLEN", KEYS.leaseHosts()).asLong());
    }

    @Test
    void aNewConversationWritesItsWholePathToTheLeastLoadedHost() {
        counts("a:1", "1");
        InflightSelection selection =
                run(select(KEYS, list("H1", "H2"), list("a:1", "b:1"), NONE, settings(0, 3600), 0));
        assertEquals("b:1", selection.host());
        assertEquals(0, selection.depth());
        assertEquals("b:1", get(KEYS.prefix("H1")));
        assertEquals("b:1", get(KEYS.prefix("H2")));
    }

    @Test
    void aFollowUpGoesToTheHolderOfItsLongestStoredPrefix() {
        redis.call("SET", KEYS.prefix("H1"), "a:1");
        redis.call("SET", KEYS.prefix("H2"), "a:1");
        counts("a:1", "9");
        InflightSelection selection =
                run(select(KEYS, list("H1", "H2", "H3"), list("a:1", "b:1"), NONE, settings(0, 3600), 0));
        assertEquals("a:1", selection.host());
        assertEquals(2, selection.depth());
        assertEquals(10, selection.count());
        assertEquals("a:1", get(KEYS.prefix("H3")));
    }

    @Test
    void theDeepestMatchedLevelDecidesTheHost() {
        redis.call("SET", KEYS.prefix("H1"), "a:1");
        redis.call("SET", KEYS.prefix("H2"), "b:1");
        InflightSelection selection =
                run(select(KEYS, list("H1", "H2"), list("a:1", "b:1"), NONE, settings(0, 3600), 0));
        assertEquals("b:1", selection.host());
        assertEquals(2, selection.depth());
    }

    @Test
    void anUnhealthyHolderEndsTheWalkAndItsKeyIsRewritten() {
        redis.call("SET", KEYS.prefix("H1"), "a:1");
        redis.call("SET", KEYS.prefix("H2"), "x:1");
        redis.call("SET", KEYS.prefix("H3"), "a:1");
        InflightSelection selection =
                run(select(KEYS, list("H1", "H2", "H3"), list("a:1", "b:1"), list("x:1"), settings(0, 3600), 0));
        assertEquals("a:1", selection.host());
        assertEquals(1, selection.depth());
        assertEquals("a:1", get(KEYS.prefix("H2")));
    }

    @Test
    void anUnhealthyFirstLevelHolderFallsBackToLeastInFlightAndRewritesThePath() {
        redis.call("SET", KEYS.prefix("H1"), "x:1");
        counts("a:1", "1");
        InflightSelection selection =
                run(select(KEYS, list("H1", "H2"), list("a:1", "b:1"), list("x:1"), settings(0, 3600), 0));
        assertEquals("b:1", selection.host());
        assertEquals(0, selection.depth());
        assertEquals("b:1", get(KEYS.prefix("H1")));
        assertEquals("b:1", get(KEYS.prefix("H2")));
    }

    @Test
    void matchedPrefixKeysGetTheirTtlRefreshed() {
        redis.call("SET", KEYS.prefix("H1"), "a:1", "EX", "10");
        run(select(KEYS, list("H1"), list("a:1"), NONE, settings(0, 3600), 0));
        assertTtlBetween(KEYS.prefix("H1"), 1700, 1800);
    }

    @Test
    void aCacheHolderAtMaxRequestCountLosesTheConversationToTheLeastLoadedHost() {
        redis.call("SET", KEYS.prefix("H1"), "a:1");
        counts("a:1", "1");
        InflightSelection selection = run(select(KEYS, list("H1"), list("a:1", "b:1"), NONE, settings(1, 3600), 0));
        assertEquals("b:1", selection.host());
        assertEquals(0, selection.depth());
        assertEquals("b:1", get(KEYS.prefix("H1")));
    }

    @Test
    void twoRoutesKeepSeparateCountsAndPrefixes() {
        RedisKeys other = RedisKeys.of("route-b", "outbound|80||llm.dns");
        run(select(KEYS, list("H1"), list("a:1"), NONE, settings(0, 3600), 0));
        run(select(other, list("H1"), list("b:1"), NONE, settings(0, 3600), 0));
        assertEquals("a:1", get(KEYS.prefix("H1")));
        assertEquals("b:1", get(other.prefix("H1")));
        assertEquals("1", field("a:1"));
        assertTrue(redis.call("HGET", KEYS.inflight(), "b:1").isNull());
    }

    @Test
    void evalShaFallsBackToEvalOnceAndThenHitsTheCachedScript() {
        redis.call("SCRIPT", "FLUSH");
        run(select(list("a:1")));
        assertTrue(redis.lastCallNeededEval);
        run(select(list("a:1")));
        assertFalse(redis.lastCallNeededEval);
    }

    @Test
    void scriptLoadReturnsTheSha1WeComputed() {
        assertEquals(
                Scripts.SELECT.sha1(),
                redis.call("SCRIPT", "LOAD", Scripts.SELECT.source()).asString());
        assertEquals(
                Scripts.RELEASE.sha1(),
                redis.call("SCRIPT", "LOAD", Scripts.RELEASE.source()).asString());
    }

    private Map<String, String> hash() {
        List<RespValue> flat = redis.call("HGETALL", KEYS.inflight()).elements();
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < flat.size(); i += 2) {
            out.put(flat.get(i).asString(), flat.get(i + 1).asString());
        }
        return out;
    }

    private long redisSeconds() {
        return Long.parseLong(redis.call("TIME").elements().get(0).asString());
    }

    /** Ages a lease as if its request had started longer than the lease TTL ago. */
    private void expire(String lease) {
        redis.call("ZADD", KEYS.leases(), "XX", "1", lease);
    }

    private String get(String key) {
        return redis.call("GET", key).asString();
    }

    private void assertTtlBetween(String key, long min, long max) {
        long ttl = redis.call("TTL", key).asLong();
        assertTrue(ttl >= min && ttl <= max, key + " TTL " + ttl);
    }
}
