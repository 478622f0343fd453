package io.ailb.lb.policy.cacheaware;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.resp.RespValue;
import io.ailb.lb.policy.inflight.InflightSelection;
import io.ailb.lb.redis.FreshRedisTest;
import io.ailb.lb.redis.LuaResources;
import io.ailb.lb.redis.LuaScript;
import io.ailb.lb.redis.RedisCall;
import io.ailb.lb.redis.RedisCommand;
import io.ailb.lb.redis.RedisKeys;
import io.ailb.lb.redis.RedisTarget;
import io.ailb.lb.request.RequestParser;
import io.ailb.lb.util.Rng;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * cache_aware.lua, cache_aware_first_token.lua and cache_aware_release.lua against a real Redis, called with the
 * production layout. Most tests use weight 1 and no in-flight term (cost = queue + uncached tokens), so every cost is
 * a sum they can state.
 */
class CacheAwareScriptTest extends FreshRedisTest {
    private static final RedisKeys KEYS = RedisKeys.of("route-a", "outbound|80||llm.dns");
    private static final LuaScript SCRIPT = LuaResources.script(CacheAwareScriptTest.class, "cache_aware");
    private static final LuaScript RELEASE = LuaResources.script(CacheAwareScriptTest.class, "cache_aware_release");
    private static final LuaScript FIRST_TOKEN =
            LuaResources.script(CacheAwareScriptTest.class, "cache_aware_first_token");
    private static final List<String> NONE = Collections.emptyList();
    private static final RedisTarget REDIS = new RedisTarget("redis.static", 6379, "", "", 3000, 0);
    private static final List<String> ABC = Arrays.asList("a:1", "b:1", "c:1");
    private static final int BLOCK_TTL = 1800;

    private long leases;
    /**
     * The gateway's clock for the calls that do not state one: fixed for the test, so a queue never drains between two
     * calls of a test that crossed a second of Redis's clock (the drain's own tests state each call's time).
     */
    private long gatewayMillis;

    private static CacheAwareSelection.Settings settings(
            int cap, double inflightTokens, double overloadQueueRequests, int maxHolders) {
        return settings(cap, inflightTokens, overloadQueueRequests, maxHolders, 0);
    }

    private static CacheAwareSelection.Settings settings(
            int cap, double inflightTokens, double overloadQueueRequests, int maxHolders, long kvCacheTokens) {
        return settings(cap, inflightTokens, overloadQueueRequests, maxHolders, kvCacheTokens, 0);
    }

    private static CacheAwareSelection.Settings settings(
            int cap,
            double inflightTokens,
            double overloadQueueRequests,
            int maxHolders,
            long kvCacheTokens,
            double recentWorkShare) {
        return new CacheAwareSelection.Settings(
                new InflightSelection.Settings(cap, 3600, 3600, BLOCK_TTL, 600),
                inflightTokens,
                overloadQueueRequests,
                maxHolders,
                kvCacheTokens,
                recentWorkShare,
                CacheAwarePolicy.DEFAULT_PREFILL_TOKENS_PER_SECOND);
    }

    private static final CacheAwareSelection.Settings PLAIN = settings(0, 0, 0, 8);

    /**
     * A request whose blocks are named conversation-1..n, ending at the given cumulative tokens (the last = prompt),
     * whose response streams, so its work stays queued until its first-token call (an unstreamed one's leaves at its
     * expected time on the clock; see {@link #unstreamed}).
     */
    private static CacheAwareSelection.Demand demand(String conversation, int... blockEnds) {
        return unstreamed(conversation, blockEnds).streaming();
    }

    private static CacheAwareSelection.Demand unstreamed(String conversation, int... blockEnds) {
        List<String> hashes = new ArrayList<>();
        List<Integer> tokens = new ArrayList<>();
        for (int i = 0; i < blockEnds.length; i++) {
            hashes.add(conversation + "-" + (i + 1));
            tokens.add(blockEnds[i]);
        }
        int prompt = blockEnds.length == 0 ? 0 : blockEnds[blockEnds.length - 1];
        return new CacheAwareSelection.Demand(hashes, tokens, prompt);
    }

    private String lease() {
        return InflightSelection.leaseId(0x2000_0000_0000L + leases++);
    }

    private RedisCommand command(
            CacheAwareSelection.Demand demand,
            List<String> healthy,
            List<String> unhealthy,
            CacheAwareSelection.Settings settings,
            int random,
            String leaseId) {
        RedisCommand production =
                CacheAwareSelection.command(KEYS, demand, healthy, unhealthy, settings, random, leaseId, gatewayMillis);
        return RedisCommand.script(SCRIPT, production.keys(), production.args());
    }

    private CacheAwareSelection run(
            CacheAwareSelection.Demand demand,
            List<String> healthy,
            CacheAwareSelection.Settings settings,
            int random,
            String leaseId) {
        RespValue reply = redis.run(command(demand, healthy, NONE, settings, random, leaseId));
        CacheAwareSelection selection = CacheAwareSelection.parse(reply);
        assertNotNull(selection, "unexpected reply " + reply);
        return selection;
    }

    private CacheAwareSelection run(CacheAwareSelection.Demand demand, List<String> healthy) {
        return run(demand, healthy, PLAIN, 0, lease());
    }

    private long release(String leaseId) {
        return release(leaseId, PLAIN);
    }

    /** The release as the flow sends it after a decision with {@code settings}. */
    private long release(String leaseId, CacheAwareSelection.Settings settings) {
        RedisCommand production = CacheAwareSelection.release(KEYS, leaseId, settings);
        return redis.run(RedisCommand.script(RELEASE, production.keys(), production.args()))
                .asLong();
    }

    private long firstToken(String leaseId) {
        return firstTokenAt(leaseId, gatewayMillis);
    }

    /** The first-token call as the flow sends it at {@code nowMillis} (the clock appended). */
    private long firstTokenAt(String leaseId, long nowMillis) {
        RedisCommand production = RedisCall.clocked(REDIS, CacheAwareSelection.firstToken(KEYS, leaseId))
                .sentAt(nowMillis)
                .command();
        return redis.run(RedisCommand.script(FIRST_TOKEN, production.keys(), production.args()))
                .asLong();
    }

    private long waitingOf(String host) {
        RespValue value = redis.call("HGET", KEYS.cacheAwareWaiting(), host);
        return value.isNull() ? 0 : Long.parseLong(value.asString());
    }

    /** The fit of first-token times the scripts keep, as the local index holds it. */
    private double[] fit() {
        RespValue value = redis.call("HGET", KEYS.cacheAwareRouted(), "f");
        double[] fit = new double[12];
        if (!value.isNull()) {
            String[] parts = value.asString().split(" ");
            for (int i = 0; i < 12; i++) {
                fit[i] = Double.parseDouble(parts[i]);
            }
        }
        return fit;
    }

    private long now() {
        return Long.parseLong(redis.call("TIME").elements().get(0).asString());
    }

    private void hold(String block, String host, long seenSeconds) {
        redis.call("HSET", KEYS.holders(block), host, Long.toString(seenSeconds));
    }

    private void load(String host, long work) {
        redis.call("HSET", KEYS.load(), host, Long.toString(work));
    }

    private long loadOf(String host) {
        RespValue v = redis.call("HGET", KEYS.load(), host);
        return v.isNull() ? 0 : Long.parseLong(v.asString());
    }

    private long countOf(String host) {
        RespValue v = redis.call("HGET", KEYS.inflight(), host);
        return v.isNull() ? 0 : Long.parseLong(v.asString());
    }

    /** The holder hosts of a block, without its use count and first-seen fields. */
    private Set<String> holdersOf(String block) {
        Set<String> out = new HashSet<>();
        List<RespValue> fields = redis.call("HGETALL", KEYS.holders(block)).elements();
        for (int i = 0; i < fields.size(); i += 2) {
            String field = fields.get(i).asString();
            if (!field.startsWith("#")) {
                out.add(field);
            }
        }
        return out;
    }

    /**
     * Sets the decayed sums behind the mean work per request to {@code tokens}, weighted as a thousand requests, so the
     * next few requests barely move it.
     */
    private void setMeanWork(long tokens) {
        redis.call("HSET", KEYS.cacheAwareRouted(), "w", Long.toString(tokens * 1000), "c", "1000");
    }

    /**
     * Most tests state costs at weight 1: with a mean work of 10^12 tokens any queue is a vanishing fraction of one
     * request, so uncached tokens weigh 1 + 10^-9 at most (costs are compared and reported to 0.01 tokens). The
     * weight's own tests set the mean work they need.
     */
    @BeforeEach
    void queuesAreShortAgainstTheMeanWork() {
        setMeanWork(1_000_000_000_000L);
    }

    /** Once per test only: a test that resets the mean work halfway keeps its clock. */
    @BeforeEach
    void pinTheGatewayClock() {
        gatewayMillis = now() * 1000;
    }

    /** An empty Redis, but for the mean work the tests state their costs at. */
    private void flushAll() {
        redis.call("FLUSHALL");
        queuesAreShortAgainstTheMeanWork();
    }

    private long blockField(String block, String field) {
        return Long.parseLong(redis.call("HGET", KEYS.holders(block), field).asString());
    }

    private static final CacheAwareSelection.Settings KV_1000 = settings(0, 0, 0, 8, 1000);

    private long heldOf(String host) {
        RespValue v = redis.call("HGET", KEYS.cacheAwareHeld(), host);
        return v.isNull() ? 0 : Long.parseLong(v.asString());
    }

    /**
     * A request in flight holds its work in its host's KV cache until its release, not only until its first token: a
     * request that would not fit next to it there (held + uncached above the KV size) is charged the excess, which it
     * would wait for running requests to free. Without a KV size no room is counted.
     */
    @Test
    void aHostWhoseHeldKvLeavesNoRoomForThePromptIsChargedTheExcess() {
        String running = lease();
        run(demand("long", 900), Collections.singletonList("a:1"), KV_1000, 0, running);
        assertEquals(900, heldOf("a:1"));
        firstToken(running);
        assertEquals(0, loadOf("a:1"), "its prefill is done");
        assertEquals(900, heldOf("a:1"), "its KV is still held");

        List<String> ab = Arrays.asList("a:1", "b:1");
        // 900 held + 300 new on a: 200 over the 1000-token cache; b is empty. Each is released before the next.
        for (int random = 0; random < 4; random++) {
            String fresh = lease();
            CacheAwareSelection s = run(demand("fresh" + random, 300), ab, KV_1000, random, fresh);
            assertEquals("b:1", s.host(), "random " + random);
            assertEquals(300, s.cost());
            release(fresh);
        }
        // Exactly fitting is no excess: 900 + 100 on a costs its 100 uncached tokens alone.
        String small = lease();
        assertEquals(
                100,
                run(demand("small", 100), Collections.singletonList("a:1"), KV_1000, 0, small)
                        .cost());
        release(small);

        // With no room anywhere the request waits wherever it goes: no excess is charged, a and b tie.
        String other = lease();
        run(demand("other", 900), Collections.singletonList("b:1"), KV_1000, 0, other);
        firstToken(other);
        for (int random = 0; random < 2; random++) {
            String fresh = lease();
            CacheAwareSelection s = run(demand("none" + random, 300), ab, KV_1000, random, fresh);
            assertEquals(ab.get(random), s.host());
            assertEquals(300, s.cost());
            release(fresh);
        }

        // Without a KV size, held KV is not counted: a and b tie on a fresh request (random 0 takes the first).
        flushAll();
        String plain = lease();
        run(demand("long", 900), Collections.singletonList("a:1"), PLAIN, 0, plain);
        firstToken(plain);
        assertEquals(900, heldOf("a:1"), "tracked all the same, for when the size becomes known");
        String fresh = lease();
        assertEquals("a:1", run(demand("fresh", 300), ab, PLAIN, 0, fresh).host());
        assertEquals(1200, heldOf("a:1"));

        // A release gives back its own request's held KV, once.
        release(plain);
        assertEquals(300, heldOf("a:1"));
        release(plain);
        assertEquals(300, heldOf("a:1"));
        release(fresh);
        assertEquals(0, heldOf("a:1"));
    }

    /** Routed to the only host given, answered and ended: its blocks, its written count and its end remain. */
    private void served(CacheAwareSelection.Demand demand, String host, CacheAwareSelection.Settings settings) {
        String lease = lease();
        run(demand, Collections.singletonList(host), settings, 0, lease);
        release(lease, settings);
    }

    @Test
    void aBlockCountsAsEvictedOnceMoreThanTheKvCacheWasWrittenSinceItsLastUse() {
        List<String> ab = Arrays.asList("a:1", "b:1");
        // a served a 600-token conversation, then 300 tokens of another: 300 written since, the first is still held.
        served(demand("first", 600), "a:1", KV_1000);
        served(demand("other", 300), "a:1", KV_1000);
        assertEquals(
                900,
                Long.parseLong(
                        redis.call("HGET", KEYS.cacheAwareWritten(), "a:1").asString()));
        load("a:1", 50);
        CacheAwareSelection held = run(demand("first", 600, 700), ab, KV_1000, 0, lease());
        assertEquals("a:1", held.host(), "a: 50 + 100 against b's 700");
        assertEquals(600, held.matchedTokens());

        // 1,000 more tokens written to a since: an LRU cache of 1,000 tokens has dropped "first" there, and the
        // script forgets that holder.
        flushAll();
        served(demand("first", 600), "a:1", KV_1000);
        served(demand("third", 1001), "a:1", KV_1000);
        assertFirstIsGoneFromA();

        // Without a KV size nothing is judged evicted: the same history keeps a as the holder.
        flushAll();
        served(demand("first", 600), "a:1", PLAIN);
        served(demand("third", 5000), "a:1", PLAIN);
        load("a:1", 50);
        CacheAwareSelection kept = run(demand("first", 600, 700), ab, PLAIN, 0, lease());
        assertEquals("a:1", kept.host());
        assertEquals(600, kept.matchedTokens());
    }

    /**
     * a takes a 600-token conversation, "first", that runs on while 1,001 tokens of another are served there; returns
     * its lease, still held.
     */
    private String firstRunningWhileOthersAreServed() {
        String running = lease();
        run(demand("first", 600), Collections.singletonList("a:1"), KV_1000, 0, running);
        served(demand("third", 1001), "a:1", KV_1000);
        return running;
    }

    @Test
    void aBlockARunningRequestLastUsedIsNotEvictedUntilThatRequestEnds() {
        List<String> ab = Arrays.asList("a:1", "b:1");
        // By the written count alone "first" is gone, but an engine keeps the blocks of a running request.
        String running = firstRunningWhileOthersAreServed();
        load("a:1", 50);
        String next = lease();
        CacheAwareSelection kept = run(demand("first", 600, 700), ab, KV_1000, 0, next);
        assertEquals("a:1", kept.host(), "a: 50 + 100 against b's 700");
        assertEquals(600, kept.matchedTokens());

        // Both ended, and 1,001 tokens written to a since the last end: now the block is gone there.
        release(running, KV_1000);
        release(next, KV_1000);
        served(demand("fourth", 1001), "a:1", KV_1000);
        assertFirstIsGoneFromA();
    }

    @Test
    void aBlockOfAnEndedRequestCountsAsUsedUntilItsEnd() {
        List<String> ab = Arrays.asList("a:1", "b:1");
        // Its blocks were in use until its end, the latest its engine let go of, whatever was written meanwhile.
        String running = firstRunningWhileOthersAreServed();
        assertEquals(0, release(running, KV_1000), "held: its 600 tokens leave a's queue, nothing else is there");
        assertEquals(
                "e1601", redis.call("HGET", KEYS.cacheAwareLeaseInfo(), running).asString(), "a's count at its end");
        load("a:1", 50);
        String next = lease();
        CacheAwareSelection kept = run(demand("first", 600, 700), ab, KV_1000, 0, next);
        assertEquals("a:1", kept.host(), "a: 50 + 100 against b's 700: the history is still there");
        assertEquals(600, kept.matchedTokens());

        // The ended lease is no work lease: a second release or a first token finds nothing to give back, and it
        // stays.
        assertEquals(-1, release(running, KV_1000));
        assertEquals(-1, firstToken(running));
        assertEquals(
                "e1601", redis.call("HGET", KEYS.cacheAwareLeaseInfo(), running).asString());

        // 1,001 tokens written to a since the turn after it ended: gone.
        release(next, KV_1000);
        served(demand("fourth", 1001), "a:1", KV_1000);
        assertFirstIsGoneFromA();

        // An ended lease is kept for the lease TTL, then healed away like an expired one: the holder is judged by
        // the count since its routing again.
        flushAll();
        String old = firstRunningWhileOthersAreServed();
        release(old, KV_1000);
        redis.call("ZADD", KEYS.cacheAwareLeases(), Long.toString(now() - 1), old);
        assertFirstIsGoneFromA();
        assertTrue(redis.call("HGET", KEYS.cacheAwareLeaseInfo(), old).isNull(), "healed");

        // The tokens written since its end are weighed against the room the requests running there leave: with 500
        // tokens in flight on a, 500 written since fit beside them, 501 do not.
        for (int since : new int[] {500, 501}) {
            flushAll();
            release(firstRunningWhileOthersAreServed(), KV_1000);
            run(demand("running", 500), Collections.singletonList("a:1"), KV_1000, 0, lease());
            if (since > 500) {
                served(demand("more", since - 500), "a:1", KV_1000);
            }
            load("a:1", 50);
            CacheAwareSelection turn = run(demand("first", 600, 700), ab, KV_1000, 0, lease());
            assertEquals(since == 500 ? 600 : 0, turn.matchedTokens(), since + " written since its end");
        }

        // Released without a KV size (0 seconds kept): nothing is recorded, the count since its routing decides.
        flushAll();
        String unknown = firstRunningWhileOthersAreServed();
        release(unknown, PLAIN);
        assertTrue(redis.call("HGET", KEYS.cacheAwareLeaseInfo(), unknown).isNull());
        assertFirstIsGoneFromA();
    }

    /** With 50 tokens queued on a, the next turn of "first" finds a holding nothing of it any more and goes to b. */
    private void assertFirstIsGoneFromA() {
        load("a:1", 50);
        CacheAwareSelection evicted = run(demand("first", 600, 700), Arrays.asList("a:1", "b:1"), KV_1000, 0, lease());
        assertEquals("b:1", evicted.host(), "a is busier and holds nothing of it any more");
        assertEquals(0, evicted.matchedTokens());
        assertFalse(holdersOf("first-1").contains("a:1"));
    }

    @Test
    void aRequestStartingAConversationIsChargedTheConfiguredShareOfAHostsRecentWorkOverTheMean() {
        List<String> ab = Arrays.asList("a:1", "b:1");
        CacheAwareSelection.Settings recent = settings(0, 0, 0, 8, 0, 0.5);
        String started = lease();
        long before = now();
        assertEquals("a:1", run(demand("first", 4000), ab, recent, 0, started).host(), "an idle tie: the first");
        firstToken(started);
        String[] stored =
                redis.call("HGET", KEYS.cacheAwareRecent(), "a:1").asString().split(" ");
        assertEquals("4000", stored[0]);
        assertTrue(Long.parseLong(stored[1]) >= before && Long.parseLong(stored[1]) <= now(), stored[1]);

        // Nothing queued anywhere, but a took 4,000 tokens of new work a moment ago and b none: a is charged half of
        // its 2,000 over the mean and b credited half of its 2,000 under it, about 2,000 tokens between them.
        CacheAwareSelection next = run(demand("second", 100), ab, recent, 0, lease());
        assertEquals("b:1", next.host());
        assertTrue(next.cost() <= 100 - 0.5 * 2000 * Math.exp(-0.2 * 2), "cost " + next.cost());

        // A request whose prefix both hold chooses between holders: the recent work is not charged, a tie again.
        long now = now();
        hold("shared-1", "a:1", now);
        hold("shared-1", "b:1", now);
        redis.call("HSET", KEYS.cacheAwareRecent(), "a:1", "4000 " + now, "b:1", "0 " + now);
        redis.call("DEL", KEYS.load(), KEYS.inflight());
        assertEquals(
                "a:1", run(demand("shared", 100, 200), ab, recent, 0, lease()).host(), "held: not charged");
        // Nor is a request whose session names a host: it goes on with its conversation there.
        redis.call("DEL", KEYS.load(), KEYS.inflight());
        redis.call("HSET", KEYS.cacheAwareSession("s9"), "h", "a:1", "p", "100");
        CacheAwareSelection resumed = run(blockless(100).inSession("s9"), ab, recent, 0, lease());
        assertEquals("a:1", resumed.host(), "in a session: not charged");
        assertEquals(0, resumed.cost());
        flushAll();
        String plain = lease();
        run(demand("first", 4000), ab, PLAIN, 0, plain);
        firstToken(plain);
        assertEquals("a:1", run(demand("second", 100), ab, PLAIN, 0, lease()).host(), "without the share: a tie");
        assertEquals(0, redis.call("HLEN", KEYS.cacheAwareRecent()).asLong(), "nor anything recorded");

        // Work taken two minutes ago has faded (e^-24): a tie again.
        flushAll();
        redis.call("HSET", KEYS.cacheAwareRecent(), "a:1", "4000 " + (now() - 120));
        assertEquals("a:1", run(demand("third", 100), ab, recent, 0, lease()).host());
    }

    @Test
    void aHolderWrittenBeforeWrittenCountsExistedIsNeverJudgedEvicted() {
        long now = now();
        hold("conv-1", "a:1", now);
        redis.call("HSET", KEYS.cacheAwareWritten(), "a:1", "1000000");
        CacheAwareSelection kept = run(demand("conv", 100, 200), Arrays.asList("a:1", "b:1"), KV_1000, 0, lease());
        assertEquals("a:1", kept.host());
        assertEquals(100, kept.matchedTokens());
    }

    /** A value an older module wrote ("<last use> <written>", no lease) is judged by its written count, as then. */
    @Test
    void aHolderWrittenBeforeLeasesExistedIsJudgedByItsWrittenCountAlone() {
        CacheAwareSelection kept = routeWithOldHolderValueOnA(500);
        assertEquals("a:1", kept.host(), "900 tokens written since its use: still held");
        assertEquals(100, kept.matchedTokens());

        flushAll();
        CacheAwareSelection gone = routeWithOldHolderValueOnA(399);
        assertEquals("b:1", gone.host(), "1,001 written since and no request keeps it: evicted");
        assertEquals(0, gone.matchedTokens());
        assertFalse(holdersOf("conv-1").contains("a:1"));
    }

    /**
     * a holds conv-1 by a value without a lease, written at count {@code writtenThen}, 1,400 written now, 50 queued;
     * the next turn (100 tokens held, 100 new) chooses between a and b.
     */
    private CacheAwareSelection routeWithOldHolderValueOnA(long writtenThen) {
        redis.call("HSET", KEYS.holders("conv-1"), "a:1", now() + " " + writtenThen);
        redis.call("HSET", KEYS.cacheAwareWritten(), "a:1", "1400");
        load("a:1", 50);
        return run(demand("conv", 100, 200), Arrays.asList("a:1", "b:1"), KV_1000, 0, lease());
    }

    @Test
    void theHostThatAnsweredAPromptHoldsItsAnswerToo() {
        long now = now();
        // Blocks end at 100 and 400 tokens; the second opens with a 200-token answer to the first (engines cache
        // generated tokens). a answered block 1 and has 250 queued; b is idle and holds nothing.
        hold("conv-1", "a:1", now);
        load("a:1", 250);
        List<String> ab = Arrays.asList("a:1", "b:1");
        CacheAwareSelection.Demand withAnswer = new CacheAwareSelection.Demand(
                Arrays.asList("conv-1", "conv-2"), Arrays.asList(100, 400), Arrays.asList(300, 400), 400);
        // a: 250 + (400 - 300) = 350 against b's 400.
        CacheAwareSelection stays = run(withAnswer, ab);
        assertEquals("a:1", stays.host());
        assertEquals(1, stays.depth());
        assertEquals(300, stays.matchedTokens());
        assertEquals(350, stays.cost());
        assertEquals(100, stays.work(), "the answer is not prefilled again");

        // The same request without an answer after block 1: a costs 250 + 300 = 550, b 400.
        flushAll();
        hold("conv-1", "a:1", now);
        load("a:1", 250);
        CacheAwareSelection moves = run(demand("conv", 100, 400), ab);
        assertEquals("b:1", moves.host());
        assertEquals(400, moves.cost());

        // A host holding the next block too is credited with that block, whatever the answer.
        flushAll();
        hold("conv-1", "a:1", now);
        hold("conv-2", "b:1", now);
        CacheAwareSelection deeper = run(
                new CacheAwareSelection.Demand(
                        Arrays.asList("conv-1", "conv-2", "conv-3"),
                        Arrays.asList(100, 400, 500),
                        Arrays.asList(300, 400, 500),
                        500),
                ab);
        assertEquals("b:1", deeper.host());
        assertEquals(400, deeper.matchedTokens());
    }

    @Test
    void eachHealthyHostIsCreditedWithTheDeepestBlockItHolds() {
        long now = now();
        // Blocks end at 100, 300 and 400 tokens. a holds blocks 1-2, b holds block 1, c nothing.
        hold("conv-1", "a:1", now);
        hold("conv-1", "b:1", now);
        hold("conv-2", "a:1", now);
        CacheAwareSelection.Demand request = demand("conv", 100, 300, 400);

        // Idle hosts: a's uncached rest (100) beats b's (300) and c's (400).
        CacheAwareSelection first = run(request, ABC);
        assertEquals("a:1", first.host());
        assertEquals(2, first.depth());
        assertEquals(300, first.matchedTokens());
        assertEquals(100, first.cost());
        assertEquals(100, first.work(), "the uncached tokens are queued");

        // With 250 work on a (cost 100 + 250 = 350) b's depth 1 (cost 300) wins, not c (400).
        flushAll();
        hold("conv-1", "a:1", now);
        hold("conv-1", "b:1", now);
        hold("conv-2", "a:1", now);
        load("a:1", 250);
        CacheAwareSelection second = run(request, ABC);
        assertEquals("b:1", second.host());
        assertEquals(1, second.depth());
        assertEquals(100, second.matchedTokens());
        assertEquals(300, second.cost());
        assertEquals(300, second.work());
    }

    @Test
    void anUnhealthyHolderEarnsNothingAndIsKeptForLater() {
        long now = now();
        hold("conv-1", "a:1", now);
        CacheAwareSelection selection = run(demand("conv", 500), Arrays.asList("b:1", "c:1"));
        assertEquals(0, selection.depth());
        assertNotEquals("a:1", selection.host());
        assertTrue(holdersOf("conv-1").contains("a:1"));
        assertTrue(holdersOf("conv-1").contains(selection.host()));
    }

    @Test
    void theChosenHostBecomesAHolderOfEveryBlockBesideTheOthers() {
        long now = now();
        hold("conv-1", "a:1", now - 5);
        CacheAwareSelection.Demand request = demand("conv", 100, 200, 300);
        load("a:1", 1_000);
        String lease = lease();
        String host = run(request, ABC, PLAIN, 0, lease).host();
        assertNotEquals("a:1", host);
        assertEquals(new HashSet<>(Arrays.asList("a:1", host)), holdersOf("conv-1"));
        assertEquals(Collections.singleton(host), holdersOf("conv-2"));
        assertEquals(Collections.singleton(host), holdersOf("conv-3"));
        // "<last use> <the host's written count then> <lease>": the request's 300 tokens were its first work there.
        String[] holder =
                redis.call("HGET", KEYS.holders("conv-3"), host).asString().split(" ");
        long seen = Long.parseLong(holder[0]);
        assertTrue(Math.abs(seen - now) <= 2, "last use " + seen + " vs now " + now);
        assertEquals("300", holder[1]);
        assertEquals(lease, holder[2]);
    }

    @Test
    void eachRoutingCountsAUseOfEveryBlockAndTheFirstCallStampsItsBirth() {
        run(demand("warm", 10), ABC);
        run(demand("warm", 10), ABC);
        run(demand("conv", 100, 200), ABC);
        run(demand("conv", 100, 300), ABC);
        assertEquals(
                4,
                Long.parseLong(redis.call("HGET", KEYS.cacheAwareRouted(), "n").asString()));
        assertEquals(2, blockField("conv-1", "#u"));
        assertEquals(2, blockField("conv-1", "#t"), "first seen by the third request: 2 routed before it");
        assertEquals(2, blockField("conv-2", "#u"), "both requests name their second block conv-2");
        assertEquals(2, blockField("warm-1", "#u"));
        assertEquals(0, blockField("warm-1", "#t"));
    }

    /** A 1000-token system prompt block "sys", then {@code newTokens} tokens of a block of its own. */
    private static CacheAwareSelection.Demand systemPromptAnd(String question, int newTokens) {
        return new CacheAwareSelection.Demand(
                Arrays.asList("sys", question), Arrays.asList(1000, 1000 + newTokens), 1000 + newTokens);
    }

    /**
     * A block carried by well over its holders' fair share of the requests is hot: uses × hosts > 1.5 × holders ×
     * (requests routed since it was first seen + hosts). "sys" is first seen at routed = 2, on a; with 2 hosts it is
     * hot from its 7th use on while a alone holds it (2u > 1.5 (u + 2)).
     */
    @Test
    void aHotBlockIsNotChargedToANewConversationUntilItsHoldersCarryAFairShare() {
        List<String> ab = Arrays.asList("a:1", "b:1");
        List<String> onlyA = Collections.singletonList("a:1");
        run(demand("other", 50), Collections.singletonList("b:1"));
        run(demand("else", 50), Collections.singletonList("b:1"));
        run(
                new CacheAwareSelection.Demand(Collections.singletonList("sys"), Collections.singletonList(1000), 1000),
                onlyA);
        load("a:1", 1000);
        load("b:1", 1);
        // 1 use: not hot. a costs 1000 + 100, b 1 + 1100.
        CacheAwareSelection cold = run(systemPromptAnd("q1", 100), ab);
        assertEquals("a:1", cold.host());
        assertEquals(1100, cold.cost());
        for (int i = 2; i <= 6; i++) {
            run(systemPromptAnd("q" + i, 0), onlyA);
        }
        // 7 uses, routed 9: 14 > 1.5 × (9 − 2 + 2), hot. b's queue of 600 tokens (the typical one: a's, the longest,
        // is left out) is one request of the mean work, so the weight is 1 + 1 = 2: a costs 3000 + 2 × 200, b costs
        // 600 + 2 × 1200 − 1000 (its prefill of the hot prompt is not charged, the delay it causes others is).
        load("a:1", 3000);
        load("b:1", 600);
        setMeanWork(600);
        CacheAwareSelection hot = run(systemPromptAnd("q7", 200), ab, PLAIN, 0, lease());
        assertEquals("b:1", hot.host());
        assertEquals(2000, hot.cost());
        assertEquals(1200, hot.work(), "the queued work is the real prefill, hot tokens included");
        assertEquals(new HashSet<>(ab), holdersOf("sys"));
        // 8 uses, 2 holders: 16 ≤ 1.5 × 2 × (10 − 2 + 2), not hot; the request goes by queue and cache again.
        queuesAreShortAgainstTheMeanWork();
        load("a:1", 1200);
        load("b:1", 5000);
        CacheAwareSelection fair = run(systemPromptAnd("q8", 300), ab);
        assertEquals("a:1", fair.host());
        assertEquals(1500, fair.cost());
    }

    @Test
    void aConversationCachedSomewhereIsChargedItsHotPrefixInFull() {
        List<String> ab = Arrays.asList("a:1", "b:1");
        run(
                new CacheAwareSelection.Demand(Collections.singletonList("sys"), Collections.singletonList(1000), 1000),
                Collections.singletonList("a:1"));
        for (int i = 1; i <= 8; i++) {
            run(systemPromptAnd("q" + i, 0), Collections.singletonList("a:1"));
        }
        // "sys" is hot, but the next turn of q1's conversation finds q1 cached on a: b is charged all 1300 tokens;
        CacheAwareSelection.Demand nextTurn = new CacheAwareSelection.Demand(
                Arrays.asList("sys", "q1", "turn2"), Arrays.asList(1000, 1000, 1300), 1300);
        // a costs 900 + 300 = 1200 < 1300; with the prompt free, b would cost 300.
        load("a:1", 900);
        CacheAwareSelection turn = run(nextTurn, ab);
        assertEquals("a:1", turn.host());
        assertEquals(1200, turn.cost());
    }

    /**
     * The crossover at weight 1, exactly: a conversation of P = 2000 prompt tokens whose first 1800 are cached on a.
     * Each loader request is a unique 1000-token prompt on a, queueing 1000 tokens there. a costs 200 + 1000k, an idle
     * host 2000: a keeps the conversation while 200 + 1000k < 2000, i.e. for k ≤ 1, and loses it from k = 2 on.
     */
    @Test
    void theQueueMovesARequestOffItsCacheHolderAtTheComputedCrossover() {
        CacheAwareSelection.Demand conversation = demand("conv", 1800, 2000);
        int crossover = -1;
        for (int k = 0; k <= 3; k++) {
            flushAll();
            loadHolder(k);
            CacheAwareSelection turn = run(conversation, ABC);
            if (k <= 1) {
                assertEquals("a:1", turn.host(), "k=" + k);
                assertEquals(1, turn.depth());
                assertEquals(1800, turn.matchedTokens());
                assertEquals(200 + 1000L * k, turn.cost());
            } else {
                assertNotEquals("a:1", turn.host(), "k=" + k);
                assertEquals(0, turn.depth());
                assertEquals(2000, turn.cost());
                if (crossover < 0) {
                    crossover = k;
                }
            }
        }
        assertEquals(2, crossover);
    }

    /** The first turn of "conv" went to a and ended (a holds 1800 tokens, no queue), then k 1000-token loaders. */
    private void loadHolder(int k) {
        String firstTurn = lease();
        run(demand("conv", 1800), Collections.singletonList("a:1"), PLAIN, 0, firstTurn);
        release(firstTurn);
        for (int i = 0; i < k; i++) {
            CacheAwareSelection loader = run(demand("loader" + i, 1000), Collections.singletonList("a:1"));
            assertEquals(1000, loader.work());
        }
        assertEquals(1000L * k, loadOf("a:1"));
    }

    /**
     * Under load uncached tokens weigh 1 + q, q the typical queue in requests (the mean over the hosts but the longest):
     * 2000 tokens queued on a, 1500 on b, none on c, a mean work of 1000 tokens: q = (1500 + 0) / 2 / 1000 = 3/4, so a
     * costs 2000 + 200 × 7/4 = 2350, b 1500 + 2000 × 7/4 = 5000 and the idle c 2000 × 7/4 = 3500: the conversation
     * stays on its cache holder, where weight 1 moved it (previous test, k = 2).
     */
    @Test
    void underLoadCachedPrefixesWeighMoreAndStayWhereTheyAre() {
        loadHolder(2);
        load("b:1", 1500);
        setMeanWork(1000);
        CacheAwareSelection turn = run(demand("conv", 1800, 2000), ABC, PLAIN, 0, lease());
        assertEquals("a:1", turn.host());
        assertEquals(2350, turn.cost());
        assertEquals(200, turn.work());
    }

    /**
     * overloadQueueRequests 4 adds q² / 4 where queues drain slower than an instance prefills (something else holds
     * them): the weight is 1 + 3/4 + (9/16) / 4 = 121/64, a costs 2000 + 200 × 121/64. Where they drain at the prefill
     * rate, and before any drain was timed, twice that: 1 + 3/4 + 2 × (9/16) / 4 = 65/32, a costs 2000 + 406.25.
     */
    @Test
    void theOverloadTermAddsTheQueueSquaredOverOverloadQueueRequests() {
        CacheAwareSelection prefillBound = overloadedTurn();
        assertEquals("a:1", prefillBound.host());
        assertEquals(2406, prefillBound.cost());

        flushAll();
        // 64 first tokens timed at 5,000 tokens a second, half the assumed prefill rate.
        redis.call("HSET", KEYS.cacheAwareRouted(), "r", "5000 1000 64");
        CacheAwareSelection heldElsewhere = overloadedTurn();
        assertEquals("a:1", heldElsewhere.host());
        assertEquals(2378, heldElsewhere.cost());
    }

    /** The next turn of a conversation a holds, with 2,000 tokens queued on a, 1,500 on b and a mean work of 1,000. */
    private CacheAwareSelection overloadedTurn() {
        loadHolder(2);
        load("b:1", 1500);
        setMeanWork(1000);
        return run(demand("conv", 1800, 2000), ABC, settings(0, 0, 4, 8), 0, lease());
    }

    /**
     * The queue counts in requests, not tokens: the same queues with a mean work of 10,000 tokens are q = 3/40, weight
     * 1.075: a costs 2000 + 200 × 1.075 = 2215, the idle c 2000 × 1.075 = 2150, so the request goes where it starts
     * soonest.
     */
    @Test
    void aQueueShorterThanOneRequestOfTheMeanWorkBarelyWeighs() {
        loadHolder(2);
        load("b:1", 1500);
        setMeanWork(10_000);
        CacheAwareSelection turn = run(demand("conv", 1800, 2000), ABC, PLAIN, 0, lease());
        assertEquals("c:1", turn.host());
        assertEquals(2150, turn.cost());
        assertEquals(2000, turn.work());
    }

    /**
     * One host's backlog does not raise the weight: with 20,000 tokens queued on the holder a and the others idle, the
     * typical queue is empty, so a costs 20,000 + 200 and an idle host 2000: the conversation leaves the host that fell
     * behind. With the plain mean (q = 20/3, weight 1 + q + q² / 4 ≈ 18.8) it would have stayed there, and every
     * request queued there since would have kept the next one there too.
     */
    @Test
    void oneHostsBacklogDoesNotMakeCopiesOfItsPrefixesDearer() {
        loadHolder(20);
        setMeanWork(1000);
        CacheAwareSelection turn = run(demand("conv", 1800, 2000), ABC, settings(0, 0, 4, 8), 0, lease());
        assertNotEquals("a:1", turn.host());
        assertEquals(2000, turn.cost());
        assertEquals(2000, turn.work());
    }

    @Test
    void theMeanWorkIsTheDecayedMeanOfTheWorkRequestsQueued() {
        redis.call("DEL", KEYS.cacheAwareRouted());
        run(demand("conv", 1000), ABC);
        run(demand("conv", 1000, 1500), ABC);
        // w = 1000 × 0.999 + 500 (the second request found its first 1000 tokens), c = 1 × 0.999 + 1.
        double work = Double.parseDouble(
                redis.call("HGET", KEYS.cacheAwareRouted(), "w").asString());
        double requests = Double.parseDouble(
                redis.call("HGET", KEYS.cacheAwareRouted(), "c").asString());
        assertEquals(1499, work, 1e-6);
        assertEquals(1.999, requests, 1e-9);
    }

    /** Each request in flight costs inflightTokens: 3 × 100 on b outweighs b's shorter queue against c. */
    @Test
    void requestsInFlightAddInflightTokensEach() {
        load("b:1", 100);
        load("c:1", 300);
        redis.call("HSET", KEYS.inflight(), "b:1", "3", "c:1", "0");
        CacheAwareSelection.Settings perRequest = settings(0, 100, 0, 8);
        CacheAwareSelection selection = run(demand("x", 50), Arrays.asList("b:1", "c:1"), perRequest, 0, lease());
        assertEquals("c:1", selection.host());
        assertEquals(300 + 50, selection.cost());
    }

    private static final CacheAwareSelection.Settings PER_REQUEST_100 = settings(0, 100, 0, 8);

    /**
     * "sys" (300 tokens) is held by a alone and was used by {@code uses} requests, far from hot (100 routed since it
     * was first seen); a, b and c have the given counts in flight and 200 tokens queued each: with a mean work of 1000
     * tokens, q = 0.2 and uncached tokens weigh 1.2.
     */
    private void sharedPrefixOnA(long uses, long inflightA, long inflightB, long inflightC) {
        flushAll();
        hold("sys", "a:1", now());
        redis.call("HSET", KEYS.holders("sys"), "#u", Long.toString(uses), "#t", "0");
        redis.call("HSET", KEYS.cacheAwareRouted(), "n", "100");
        for (String host : ABC) {
            load(host, 200);
        }
        setMeanWork(1000);
        redis.call(
                "HSET",
                KEYS.inflight(),
                "a:1",
                Long.toString(inflightA),
                "b:1",
                Long.toString(inflightB),
                "c:1",
                Long.toString(inflightC));
    }

    private static final CacheAwareSelection.Demand NEW_ON_SYS =
            new CacheAwareSelection.Demand(Arrays.asList("sys", "question"), Arrays.asList(300, 1200), 1200);

    /**
     * A conversation that starts on a shared prefix whose holders are all busy weighs the counts in flight three times:
     * a (4 in flight, over 1.2 × the mean 8/3) costs 200 + 1.2 × 900 + 3 × 400 = 2480, b 200 + 1.2 × 1200 + 3 × 200 =
     * 2240, where at the plain weight a's 1680 beat b's 1840. With c at 5, a is under 1.2 × 11/3 and the weight stays
     * plain.
     */
    @Test
    void aConversationStartingOnBusyHoldersOfASharedPrefixWeighsTheCountsInFlightThreeTimes() {
        sharedPrefixOnA(2, 4, 2, 2);
        CacheAwareSelection busy = run(NEW_ON_SYS, ABC, PER_REQUEST_100, 0, lease());
        assertEquals("b:1", busy.host());
        assertEquals(2240, busy.cost());
        assertEquals(1200, busy.work());

        sharedPrefixOnA(2, 4, 2, 5);
        CacheAwareSelection notBusy = run(NEW_ON_SYS, ABC, PER_REQUEST_100, 0, lease());
        assertEquals("a:1", notBusy.host());
        assertEquals(1680, notBusy.cost());
    }

    /**
     * The same busy holder keeps the plain weight for a prefix only one request used (a turn of its own conversation),
     * for a prompt it holds whole (no block of its own follows: a costs 200 + 400 against b's 200 + 360 + 200) and
     * before queues form: with a mean work of 10,000 tokens q = 0.02, under a tenth of a request, and a costs 200 + 1.02
     * × 900 + 400 = 1518 against b's 1624.
     */
    @Test
    void aPrefixOfOneConversationAWholeHeldPromptOrNoQueueKeepsThePlainWeight() {
        sharedPrefixOnA(1, 4, 2, 2);
        CacheAwareSelection ownTurn = run(NEW_ON_SYS, ABC, PER_REQUEST_100, 0, lease());
        assertEquals("a:1", ownTurn.host());
        assertEquals(1680, ownTurn.cost());

        sharedPrefixOnA(2, 4, 2, 2);
        CacheAwareSelection.Demand sysAlone =
                new CacheAwareSelection.Demand(Collections.singletonList("sys"), Collections.singletonList(300), 300);
        CacheAwareSelection whole = run(sysAlone, ABC, PER_REQUEST_100, 0, lease());
        assertEquals("a:1", whole.host());
        assertEquals(600, whole.cost());

        sharedPrefixOnA(2, 4, 2, 2);
        setMeanWork(10_000);
        CacheAwareSelection idle = run(NEW_ON_SYS, ABC, PER_REQUEST_100, 0, lease());
        assertEquals("a:1", idle.host());
        assertEquals(1518, idle.cost());
    }

    /**
     * As {@link #sharedPrefixOnA}, with the shared prefix made of {@code held} blocks ("p1" ... ) of 300 tokens in all,
     * held by a; the demand goes on with one block of its own to 1200 tokens.
     */
    private CacheAwareSelection.Demand longPrefixOnA(int held) {
        sharedPrefixOnA(2, 4, 2, 2);
        List<String> hashes = new ArrayList<>();
        List<Integer> tokens = new ArrayList<>();
        for (int i = 1; i <= held; i++) {
            hold("p" + i, "a:1", now());
            hashes.add("p" + i);
            tokens.add(Math.min(2 * i, 300));
        }
        redis.call("HSET", KEYS.holders("p" + held), "#u", "2", "#t", "0");
        hashes.add("own");
        tokens.add(1200);
        return new CacheAwareSelection.Demand(hashes, tokens, 1200);
    }

    /**
     * A prompt at the parser's block cap (the rest of it folded into its last block) that walks to the block before
     * that one continues a long prefix rather than starting a conversation: on the busy holder a the counts in flight
     * keep their plain weight (a 1680 against b's 1840, as in {@link
     * #aConversationStartingOnBusyHoldersOfASharedPrefixWeighsTheCountsInFlightThreeTimes}), where one block fewer is
     * a conversation start and goes to b (2240).
     */
    @Test
    void aPromptAtTheBlockCapThatWalksToItsFoldedBlockContinuesItsPrefix() {
        assertTrue(
                LuaSources.CACHE_AWARE.contains("local CAPPED_LEVELS = " + RequestParser.MAX_PREFIX_BLOCKS),
                "cache_aware.lua's CAPPED_LEVELS is the parser's cap");
        CacheAwareSelection capped =
                run(longPrefixOnA(RequestParser.MAX_PREFIX_BLOCKS - 1), ABC, PER_REQUEST_100, 0, lease());
        assertEquals("a:1", capped.host());
        assertEquals(1680, capped.cost());

        CacheAwareSelection start =
                run(longPrefixOnA(RequestParser.MAX_PREFIX_BLOCKS - 2), ABC, PER_REQUEST_100, 0, lease());
        assertEquals("b:1", start.host());
        assertEquals(2240, start.cost());
    }

    private static final List<String> ABCD = Arrays.asList("a:1", "b:1", "c:1", "d:1");

    /**
     * "sys" as in {@link #sharedPrefixOnA} (a busy: 4 in flight against 2 on b, c and d), queues of {@code queuedA} on
     * a, none on b, {@code queuedCD} on c and d, and a mean work of 1000 tokens.
     */
    private void sharedPrefixOnABehindOrNot(long queuedA, long queuedCD) {
        sharedPrefixOnA(2, 4, 2, 2);
        load("a:1", queuedA);
        load("b:1", 0);
        load("c:1", queuedCD);
        load("d:1", queuedCD);
        redis.call("HSET", KEYS.inflight(), "d:1", "2");
    }

    /**
     * When the busy holder's queue is also over the typical queue (a 3000 against (3000 + 0 + 2400 + 2400 - 3000) / 3
     * = 1600, so q = 1.6 and the weight 2.6), each host's uncached tokens weigh by its own queue: b, with none, costs
     * 1200 + 3 × 200 = 1800 instead of 2.6 × 1200 + 600 = 3720. With a at 1200, the typical queue (q = 1.2): b costs
     * 2.2 × 1200 + 600 = 3240. Behind while the typical queue holds under one request (a 300 against (300 + 0 + 400 +
     * 400 - 400) / 3 = 233, q = 0.233): the plain weight 1.233, b at 1.233 × 1200 + 600 = 2080.
     */
    @Test
    void aConversationStartingOnHoldersBehindTheTypicalQueueWeighsEachHostsUncachedTokensByItsOwnQueue() {
        sharedPrefixOnABehindOrNot(3000, 2400);
        CacheAwareSelection behind = run(NEW_ON_SYS, ABCD, PER_REQUEST_100, 0, lease());
        assertEquals("b:1", behind.host());
        assertEquals(1800, behind.cost());

        sharedPrefixOnABehindOrNot(1200, 2400);
        CacheAwareSelection atTypical = run(NEW_ON_SYS, ABCD, PER_REQUEST_100, 0, lease());
        assertEquals("b:1", atTypical.host());
        assertEquals(3240, atTypical.cost());

        sharedPrefixOnABehindOrNot(300, 400);
        CacheAwareSelection queuesUnderOneRequest = run(NEW_ON_SYS, ABCD, PER_REQUEST_100, 0, lease());
        assertEquals("b:1", queuesUnderOneRequest.host());
        assertEquals(2080, queuesUnderOneRequest.cost());
    }

    /**
     * The first turn of "conv" (blocks of 1000 and 1800 tokens) went to a {@code turns} times and ended; now a has
     * {@code queuedA} tokens queued, b and c {@code queuedBC}, and every host {@code inflight} requests in flight.
     */
    private void historyOnA(int turns, long queuedA, long queuedBC, long inflight) {
        flushAll();
        for (int i = 0; i < turns; i++) {
            String turn = lease();
            run(demand("conv", 1000, 1800), Collections.singletonList("a:1"), PLAIN, 0, turn);
            release(turn);
        }
        load("a:1", queuedA);
        load("b:1", queuedBC);
        load("c:1", queuedBC);
        String count = Long.toString(inflight);
        redis.call("HSET", KEYS.inflight(), "a:1", count, "b:1", count, "c:1", count);
    }

    private static final CacheAwareSelection.Demand NEXT_TURN = demand("conv", 1000, 1800, 2000);

    /** Routes the next turn and checks it left a for another host at {@code cost}. */
    private void assertNextTurnMovesAt(long cost) {
        CacheAwareSelection turn = run(NEXT_TURN, ABC);
        assertNotEquals("a:1", turn.host());
        assertEquals(cost, turn.cost());
    }

    /**
     * The next turn of a conversation whose 1800-token history only a holds (its first 1000 tokens are not its own),
     * with 2 requests in flight per host and no typical queue (weight 1): b and c pay 4 × 1800 for the history they
     * lack on top of their 2000 uncached tokens (a's queue is longer than that price). a keeps the turn at 8000 + 200
     * queued behind a long prompt, and loses it at 10,000 + 200, to a copy at 2000 + 7200.
     */
    @Test
    void aTurnPaysFourTimesForTheHistoryAHostLacksWhileTheFleetIsBusy() {
        historyOnA(1, 8000, 0, 2);
        CacheAwareSelection kept = run(NEXT_TURN, ABC);
        assertEquals("a:1", kept.host());
        assertEquals(8200, kept.cost());
        assertEquals(200, kept.work());

        historyOnA(1, 10_000, 0, 2);
        assertNextTurnMovesAt(2000 + 4 * 1800);
    }

    /**
     * Below a typical queue of 8 requests the price holds: at 5000 queued on b and c with a mean work of 1000 (q = 5,
     * weight 6), b and c cost 5000 + 6 × 2000 + min(4 × 6 × 1800, 40,000 − 5000) against a's 40,000 + 6 × 200, and the
     * turn stays behind a's long queue (a copy would prefill its history again while every queue holds requests).
     */
    @Test
    void aTurnStillPaysForItsHistoryWhileTheTypicalQueueHoldsFewerThanEightRequests() {
        historyOnA(1, 40_000, 5000, 2);
        setMeanWork(1000);
        CacheAwareSelection turn = run(NEXT_TURN, ABC);
        assertEquals("a:1", turn.host());
        assertEquals(40_000 + 6 * 200, turn.cost());
    }

    /**
     * The price is at most how much more prefill the holder has queued than the host: with 3000 tokens queued on a and
     * 7 requests in flight there (1000 tokens each, 2 on b and c), a costs 3000 + 200 + 7000 and b 2000 + 2000 + 3000,
     * not the full 7200: a turn leaves a holder busy with many requests, where it stays behind a long prompt.
     */
    @Test
    void thePriceIsAtMostTheHoldersExtraQueuedPrefill() {
        historyOnA(1, 3000, 0, 2);
        redis.call("HSET", KEYS.inflight(), "a:1", "7");
        CacheAwareSelection turn = run(NEXT_TURN, ABC, settings(0, 1000, 0, 8), 0, lease());
        assertNotEquals("a:1", turn.host());
        assertEquals(2000 + 2000 + 3000, turn.cost());
    }

    /**
     * No price below 2 requests in flight per host (the copy has room), for a history another request brought too
     * (a shared document, not a conversation of its own), and from a typical queue of 8 requests: there b and c, at
     * 9000 queued with a mean work of 1000 (q = 9, weight 10), cost 9000 + 10 × 2000 against a's 40,000 + 10 × 200
     * (with the price, 31,000 more: the turn would stay).
     */
    @Test
    void anIdleFleetASharedHistoryOrAnOverloadPayNoPriceForTheHistory() {
        historyOnA(1, 8000, 0, 1);
        assertNextTurnMovesAt(2000);

        historyOnA(2, 8000, 0, 2);
        assertNextTurnMovesAt(2000);

        historyOnA(1, 40_000, 9000, 2);
        setMeanWork(1000);
        assertNextTurnMovesAt(9000 + 10 * 2000);
    }

    @Test
    void theFirstTokenTakesTheQueuedTokensOffAndTheReleaseTheCount() {
        List<String> onlyA = Collections.singletonList("a:1");
        String id = lease();
        run(demand("one", 700), onlyA, PLAIN, 0, id);
        run(demand("two", 300), onlyA, PLAIN, 0, lease());
        assertEquals(1000, loadOf("a:1"));

        assertEquals(700, firstToken(id));
        assertEquals(300, loadOf("a:1"));
        assertEquals(2, countOf("a:1"), "the request is still in flight");
        assertEquals(0, firstToken(id), "a second first-token call changes nothing");
        assertEquals(300, loadOf("a:1"));

        assertEquals(300, release(id), "the release gives back the count, and no work twice");
        assertEquals(1, countOf("a:1"));
        assertEquals(-1, firstToken(id), "after the release the lease is gone");
        assertEquals(300, loadOf("a:1"));
    }

    @Test
    void aRequestWaitsForItsFirstTokenUntilItComesOrTheRequestEnds() {
        List<String> onlyA = Collections.singletonList("a:1");
        String answered = lease();
        String reset = lease();
        run(demand("one", 700), onlyA, PLAIN, 0, answered);
        run(demand("one", 700), onlyA, PLAIN, 0, reset);
        assertEquals(2, waitingOf("a:1"), "a full hit waits for its first token too");

        assertEquals(0, firstToken(reset), "nothing queued: the prompt was cached by the request before");
        assertEquals(1, waitingOf("a:1"));
        assertEquals(0, firstToken(reset), "a second first-token call changes nothing");
        assertEquals(1, waitingOf("a:1"));
        release(reset);
        assertEquals(1, waitingOf("a:1"), "its first token already took it off");

        release(answered);
        assertEquals(0, waitingOf("a:1"), "a request ending without a first token stops waiting too");
        assertTrue(redis.call("HGET", KEYS.cacheAwareWaiting(), "a:1").isNull(), "a count at zero is removed");
    }

    /** cache_aware.lua at {@code nowMillis} on the gateway's clock. */
    private CacheAwareSelection runAt(
            CacheAwareSelection.Demand demand, List<String> healthy, String leaseId, long nowMillis) {
        RedisCommand production =
                CacheAwareSelection.command(KEYS, demand, healthy, NONE, PLAIN, 0, leaseId, nowMillis);
        CacheAwareSelection selection =
                CacheAwareSelection.parse(redis.run(RedisCommand.script(SCRIPT, production.keys(), production.args())));
        assertNotNull(selection);
        return selection;
    }

    @Test
    void aQueueCountsLessWhatItsInstanceHasPrefilledSinceItBeganDraining() {
        long t0 = 5_000_000;
        runAt(demand("long", 1000), Collections.singletonList("a:1"), lease(), t0);
        runAt(demand("short", 900), Collections.singletonList("b:1"), lease(), t0 + 90);
        // 100 ms later a:1 has prefilled its 1,000 tokens at 10,000 a second; b:1, 90 ms younger, 100 of its 900.
        CacheAwareSelection next = runAt(demand("bodyless"), Arrays.asList("a:1", "b:1"), lease(), t0 + 100);
        assertEquals("a:1", next.host(), "the longer queue, nearly done");
        assertEquals(0, next.cost());
        assertEquals(1000, loadOf("a:1"), "the stored queue stays whole until its first token");
    }

    @Test
    void firstTokensTeachTheRateQueuesDrainAt() {
        // c:1 takes 500 tokens at a time, each first token 100 ms after its queue began draining: 5,000 a second.
        long at = 5_000_000;
        for (int i = 0; i < 64; i++, at += 1000) {
            String id = lease();
            runAt(demand("teach-" + i, 500), Collections.singletonList("c:1"), id, at);
            firstTokenAt(id, at + 100);
        }
        assertEquals(
                Long.toString(at - 1000 + 100),
                redis.call("HGET", KEYS.cacheAwareDrain(), "c:1").asString(),
                "the last first token restarts the drain");
        runAt(demand("long", 1000), Collections.singletonList("a:1"), lease(), at);
        runAt(demand("short", 400), Collections.singletonList("b:1"), lease(), at + 100);
        // At 5,000 a second a:1 has 500 of its 1,000 tokens left (at the assumed 10,000 it would have none).
        CacheAwareSelection next = runAt(demand("bodyless"), Arrays.asList("a:1", "b:1"), lease(), at + 100);
        assertEquals("b:1", next.host());
    }

    @Test
    void anUnstreamedRequestLeavesTheQueueWhenItsFirstTokenIsExpected() {
        // The gateway sees an unstreamed answer's first byte only with its last: before any fit, its 2,000 tokens are
        // expected prefilled after 200 ms (10,000 tokens a second).
        List<String> onlyA = Collections.singletonList("a:1");
        long routedAt = 5_000_000;
        String id = lease();
        assertEquals(200, runAt(unstreamed("whole", 2000), onlyA, id, routedAt).firstTokenInMillis());
        assertEquals(2000, loadOf("a:1"));
        assertEquals(1, waitingOf("a:1"));

        assertEquals(
                0,
                runAt(demand("other", 100), Collections.singletonList("b:1"), lease(), routedAt + 199)
                        .firstTokenInMillis(),
                "a streamed request's first token is seen, not expected");
        assertEquals(2000, loadOf("a:1"), "not expected yet");
        assertEquals(1, waitingOf("a:1"));
        runAt(demand("other", 100), Collections.singletonList("b:1"), lease(), routedAt + 200);
        assertEquals(0, loadOf("a:1"), "expected now: its prefill counts as done");
        assertEquals(0, waitingOf("a:1"));
        assertEquals(1, countOf("a:1"), "it stays in flight until its release");

        assertEquals(0, firstTokenAt(id, routedAt + 9000), "the whole answer's first byte finds nothing left");
        assertEquals(0, release(id));
        assertEquals(0, countOf("a:1"));
        assertEquals(0, waitingOf("a:1"), "nothing given back twice");
    }

    @Test
    void anUnstreamedRequestRoutedOnceQueuesAreFourRequestsLongCountsUntilItsEnd() {
        // No streamed request timed yet: the prefill rate sets the time below four typical requests queued, whatever
        // overloadQueueRequests; from four the fleet is overloaded and the request counts until its release.
        setMeanWork(1000);
        List<String> onlyA = Collections.singletonList("a:1");
        CacheAwareSelection.Settings earlyOverload = settings(0, 0, 2, 8);
        for (int i = 0; i < 3; i++) {
            run(demand("ahead-" + i, 1000), onlyA, earlyOverload, 0, lease());
        }
        assertEquals(
                400,
                run(unstreamed("third", 1000), onlyA, earlyOverload, 0, lease()).firstTokenInMillis(),
                "three requests queued: 4,000 tokens with its own at 10,000 a second");
        String held = lease();
        assertEquals(
                -1,
                run(unstreamed("fourth", 1000), onlyA, PLAIN, 0, held).firstTokenInMillis(),
                "four queued, even without the overload term");
        assertTrue(
                redis.call("ZSCORE", KEYS.cacheAwareUnseenFirstTokens(), held).isNull(),
                "no expected time: the clock never takes it off");
        assertEquals(5000, loadOf("a:1"));
        assertEquals(4000, release(held), "its work leaves with its release");
    }

    @Test
    void theConfiguredPrefillRateSetsTheExpectedTimeBeforeTheFitLearns() {
        CacheAwareSelection.Settings fast = new CacheAwareSelection.Settings(
                PLAIN.inflight(),
                PLAIN.inflightTokens(),
                PLAIN.overloadQueueRequests(),
                PLAIN.maxHolders(),
                0,
                0,
                40_000);
        String id = lease();
        RedisCommand production = CacheAwareSelection.command(
                KEYS, unstreamed("whole", 2000), Collections.singletonList("a:1"), NONE, fast, 0, id, 5_000_000);
        redis.run(RedisCommand.script(SCRIPT, production.keys(), production.args()));
        double due = Double.parseDouble(
                redis.call("ZSCORE", KEYS.cacheAwareUnseenFirstTokens(), id).asString());
        assertEquals(5_000_050, due, 0, "2,000 tokens at 40,000 a second");
    }

    @Test
    void anUnstreamedRequestEndedBeforeItsExpectedTimeIsNotTakenOffTwice() {
        List<String> onlyA = Collections.singletonList("a:1");
        long routedAt = 5_000_000;
        String ended = lease();
        runAt(unstreamed("whole", 2000), onlyA, ended, routedAt);
        runAt(demand("streamed", 700), onlyA, lease(), routedAt + 10);
        assertEquals(2700, loadOf("a:1"));
        assertEquals(700, release(ended), "the release gives back its 2,000 tokens");

        runAt(demand("other", 100), Collections.singletonList("b:1"), lease(), routedAt + 1000);
        assertEquals(700, loadOf("a:1"), "its expected time finds no lease: the streamed request keeps its work");
        assertEquals(1, waitingOf("a:1"));
    }

    @Test
    void theFitSetsWhenAnUnstreamedFirstTokenIsExpected() {
        // Serial-engine times: 30 ms per request and 62.5 µs per token, those ahead included.
        timeSerialFirstTokens(Collections.singletonList("c:1"), 64);
        List<String> onlyA = Collections.singletonList("a:1");
        long routedAt = 5_000_000;
        runAt(demand("ahead", 1000), onlyA, lease(), routedAt);
        String id = lease();
        runAt(unstreamed("whole", 2000), onlyA, id, routedAt);

        long expected = LocalCacheIndex.firstTokenInMillis(fit(), 100, 1, 3000, false);
        assertEquals(30 * 2 + 0.0625 * 3000, expected, 3, "one request ahead, 3,000 tokens with its own");
        double due = Double.parseDouble(
                redis.call("ZSCORE", KEYS.cacheAwareUnseenFirstTokens(), id).asString());
        assertEquals(routedAt + expected, due, 0, "the script's time is the local index's, to the ms");
    }

    /**
     * First-token times of an engine that serves one request at a time: 30 ms for each request, its own and the ones
     * waiting ahead of it, plus 62.5 µs for each token ahead and its own (the simulator's serial backend), so one
     * waiting request costs as much as 30 / 0.0625 = 480 tokens.
     */
    private void timeSerialFirstTokens(List<String> hosts, int requests) {
        long routedAt = 1_000_000;
        for (int i = 0; i < requests; i += 4) {
            // Up to four requests waiting at once, each of a different size.
            List<String> leases = new ArrayList<>();
            List<long[]> ahead = new ArrayList<>();
            long waiting = 0;
            long queued = 0;
            for (int k = 0; k < 4; k++) {
                String id = lease();
                int prompt = 200 + 150 * ((i + k) % 7);
                CacheAwareSelection.Demand timed = demand("timed-" + i + "-" + k, prompt);
                RedisCommand production = CacheAwareSelection.command(KEYS, timed, hosts, NONE, PLAIN, 0, id, routedAt);
                CacheAwareSelection chosen = CacheAwareSelection.parse(
                        redis.run(RedisCommand.script(SCRIPT, production.keys(), production.args())));
                assertNotNull(chosen);
                leases.add(id);
                ahead.add(new long[] {waiting, queued + chosen.work()});
                waiting++;
                queued += chosen.work();
            }
            for (int k = 0; k < 4; k++) {
                long[] a = ahead.get(k);
                long millis = Math.round(30 * (a[0] + 1) + 0.0625 * a[1]);
                firstTokenAt(leases.get(k), routedAt + millis);
                release(leases.get(k));
            }
            routedAt += 10_000;
        }
    }

    @Test
    void streamedFirstTokensTeachWhatAWaitingRequestCosts() {
        List<String> onlyA = Collections.singletonList("a:1");
        timeSerialFirstTokens(onlyA, 48);
        assertEquals(0, LocalCacheIndex.perRequestTokens(fit()), "not before 50 timed requests");
        timeSerialFirstTokens(onlyA, 16);
        assertEquals(480, LocalCacheIndex.perRequestTokens(fit()), 5);

        // A request not streamed is not timed: the fit stays as it is.
        double[] before = fit();
        String untimed = lease();
        run(unstreamed("untimed", 400), onlyA, PLAIN, 0, untimed);
        firstTokenAt(untimed, 1);
        assertEquals(Arrays.toString(before), Arrays.toString(fit()));
    }

    @Test
    void eachRequestWaitingOnAHostCostsWhatTheFitLearned() {
        // a holds two requests waiting for their first token with nothing queued (full hits), b 300 tokens of one.
        List<String> onlyA = Collections.singletonList("a:1");
        run(demand("cached", 300), onlyA);
        release(lastLease());
        run(demand("cached", 300), onlyA);
        run(demand("cached", 300), onlyA);
        run(demand("long", 300), Collections.singletonList("b:1"));
        CacheAwareSelection.Demand question = demand("new", 100);

        CacheAwareSelection untaught = run(question, Arrays.asList("a:1", "b:1"), PLAIN, 0, lease());
        assertEquals("a:1", untaught.host(), "no fit yet: a's waiting requests cost nothing, b's queue 300");
        assertEquals(100, untaught.cost());
        release(lastLease());

        timeSerialFirstTokens(Collections.singletonList("c:1"), 64);
        double perRequest = LocalCacheIndex.perRequestTokens(fit());
        CacheAwareSelection taught = run(question, Arrays.asList("a:1", "b:1"), PLAIN, 0, lease());
        assertEquals("b:1", taught.host(), "two waiting requests on a cost about 960 tokens");
        assertEquals(Math.round(300 + perRequest + 100), taught.cost(), "b has its own request waiting");
        release(lastLease());

        // Once the typical host (all but the one with the most) has two waiting, they are no longer charged.
        run(demand("cached", 300), onlyA);
        run(demand("longer", 300), Collections.singletonList("b:1"));
        CacheAwareSelection busy = run(demand("other", 100), Arrays.asList("a:1", "b:1"), PLAIN, 0, lease());
        assertEquals("a:1", busy.host(), "a: 3 waiting, b: 2 waiting and 600 tokens queued");
        assertEquals(100, busy.cost());
    }

    private String lastLease() {
        return InflightSelection.leaseId(0x2000_0000_0000L + leases - 1);
    }

    @Test
    void atExactlyEqualCostTheRandomArgumentDecides() {
        // a: 200 uncached + 1800 load = 2000 = b's and c's cost for the whole prompt.
        Set<String> winners = new HashSet<>();
        for (int random = 0; random < 3; random++) {
            flushAll();
            hold("conv-1", "a:1", now());
            load("a:1", 1800);
            winners.add(
                    run(demand("conv", 1800, 2000), ABC, PLAIN, random, lease()).host());
        }
        assertEquals(new HashSet<>(ABC), winners);
    }

    @Test
    void tiesAreBrokenUniformly() {
        Map<String, Integer> wins = new HashMap<>();
        Rng rng = new Rng(7);
        for (int i = 0; i < 3000; i++) {
            redis.call("DEL", KEYS.load(), KEYS.inflight());
            String host = run(demand("x" + i), ABC, PLAIN, rng.nextInt(InflightSelection.randomBound()), lease())
                    .host();
            wins.merge(host, 1, Integer::sum);
        }
        for (String host : ABC) {
            int n = wins.getOrDefault(host, 0);
            assertTrue(n > 850 && n < 1150, host + " won " + n + " of 3000: " + wins);
        }
    }

    @Test
    void withoutBlocksTheHostWithTheShortestQueueWinsNotTheFewestRequests() {
        // a: one long prefill queued (9000 tokens); b: three short ones (3 × 300); c: two medium (2 × 2000).
        load("a:1", 9000);
        load("b:1", 900);
        load("c:1", 4000);
        redis.call("HSET", KEYS.inflight(), "a:1", "1", "b:1", "3", "c:1", "2");
        CacheAwareSelection selection = run(new CacheAwareSelection.Demand(NONE, Collections.emptyList(), 512), ABC);
        assertEquals("b:1", selection.host());
        assertEquals(4, selection.count());
        assertEquals(0, selection.depth());
        assertEquals(900 + 512, selection.cost());
        assertEquals(512, selection.work());
        assertEquals(1412, loadOf("b:1"));
    }

    private static CacheAwareSelection.Demand blockless(int prompt) {
        return new CacheAwareSelection.Demand(NONE, Collections.emptyList(), prompt);
    }

    @Test
    void aSessionWithoutBlocksStaysOnItsLastHostWhileItsCacheOutweighsTheQueue() {
        CacheAwareSelection first = run(demand("conv", 4000).inSession("s1"), ABC, PLAIN, 0, lease());
        String host = first.host();
        assertEquals(host, redis.call("HGET", KEYS.cacheAwareSession("s1"), "h").asString());
        assertEquals(
                "4000", redis.call("HGET", KEYS.cacheAwareSession("s1"), "p").asString());
        assertTtlBetween(KEYS.cacheAwareSession("s1"), BLOCK_TTL - 5, BLOCK_TTL);
        // Its next turn cannot be hashed (no blocks) and is longer: the host holds its last 4000 tokens.
        load(host, 3000);
        CacheAwareSelection next = run(blockless(4500).inSession("s1"), ABC, PLAIN, 0, lease());
        assertEquals(host, next.host());
        assertEquals(4000, next.matchedTokens());
        assertEquals(500, next.work());
        assertEquals(4500, redis.call("HGET", KEYS.cacheAwareSession("s1"), "p").asLong());
        // Without the session the same request goes to an idle host.
        assertNotEquals(host, run(blockless(4500), ABC).host());
    }

    @Test
    void aSessionMovesWhenItsHostsQueueOutweighsItsCacheOrTheHostIsGone() {
        String host = run(demand("conv", 1000).inSession("s2"), ABC, PLAIN, 0, lease())
                .host();
        load(host, 50_000);
        CacheAwareSelection moved = run(blockless(1200).inSession("s2"), ABC, PLAIN, 0, lease());
        assertNotEquals(host, moved.host());
        assertEquals(0, moved.matchedTokens());
        assertEquals(
                moved.host(),
                redis.call("HGET", KEYS.cacheAwareSession("s2"), "h").asString());

        List<String> others = new ArrayList<>(ABC);
        others.remove(moved.host());
        CacheAwareSelection away = run(blockless(1300).inSession("s2"), others, PLAIN, 0, lease());
        assertEquals(0, away.matchedTokens(), "an unhealthy last host holds nothing for the decision");
    }

    @Test
    void theSessionCountsNoMoreThanThisPromptAndBlocksCountWhenTheyMatchMore() {
        String firstLease = lease();
        String host = run(demand("conv", 6000).inSession("s3"), ABC, PLAIN, 0, firstLease)
                .host();
        firstToken(firstLease);
        CacheAwareSelection shorter = run(blockless(2000).inSession("s3"), ABC, PLAIN, 0, lease());
        assertEquals(host, shorter.host());
        assertEquals(2000, shorter.matchedTokens());
        assertEquals(0, shorter.work());
        // The session's host now holds 2000 by the session, 6000 by the conversation's block: the blocks win.
        CacheAwareSelection longer = run(demand("conv", 6000, 7000).inSession("s3"), ABC, PLAIN, 0, lease());
        assertEquals(host, longer.host());
        assertEquals(6000, longer.matchedTokens());
    }

    @Test
    void releaseGivesBackExactlyTheCountAndTheQueuedTokensOfItsLease() {
        List<String> onlyA = Collections.singletonList("a:1");
        String first = lease();
        String second = lease();
        CacheAwareSelection s1 = run(demand("one", 700), onlyA, PLAIN, 0, first);
        CacheAwareSelection s2 = run(demand("two", 5000), onlyA, PLAIN, 0, second);
        assertEquals(700, s1.work());
        assertEquals(5000, s2.work());
        assertEquals(5700, loadOf("a:1"));
        assertEquals(2, countOf("a:1"));

        assertEquals(5000, release(first));
        assertEquals(5000, loadOf("a:1"));
        assertEquals(1, countOf("a:1"));
        assertEquals(-1, release(first), "a second release changes nothing");
        assertEquals(5000, loadOf("a:1"));

        assertEquals(0, release(second));
        assertEquals(0, redis.call("HLEN", KEYS.load()).asLong());
        assertEquals(0, redis.call("HLEN", KEYS.inflight()).asLong());
        assertEquals(0, redis.call("ZCARD", KEYS.cacheAwareLeases()).asLong());
        assertEquals(0, redis.call("HLEN", KEYS.cacheAwareLeaseInfo()).asLong());
    }

    @Test
    void anExpiredLeaseIsHealedByTheNextCallSubtractingExactlyItsQueuedTokens() {
        List<String> onlyA = Collections.singletonList("a:1");
        String crashed = lease();
        String alive = lease();
        run(demand("crashed", 1000), onlyA, PLAIN, 0, crashed);
        run(demand("alive", 300), onlyA, PLAIN, 0, alive);
        assertEquals(1000 + 300, loadOf("a:1"));
        redis.call("ZADD", KEYS.cacheAwareLeases(), Long.toString(now() - 5), crashed);

        CacheAwareSelection next = run(demand("next", 40), onlyA);

        assertEquals(300, next.cost() - 40, "the healed 1000 no longer counts");
        assertEquals(300 + 40, loadOf("a:1"));
        assertEquals(2, countOf("a:1"));
        assertEquals(2, waitingOf("a:1"), "the crashed request no longer waits");
        assertEquals(-1, release(crashed), "the crashed gateway's late release changes nothing");
        assertEquals(340, loadOf("a:1"));
        assertEquals(40, release(alive));
    }

    @Test
    void aRepeatedLeaseIdIsCountedOnce() {
        String id = lease();
        run(demand("r", 100), ABC, PLAIN, 0, id);
        run(demand("r", 100), ABC, PLAIN, 0, id);
        assertEquals(1, countOf("a:1") + countOf("b:1") + countOf("c:1"));
        long total = loadOf("a:1") + loadOf("b:1") + loadOf("c:1");
        assertEquals(100, total);
        release(id);
        assertEquals(0, redis.call("HLEN", KEYS.load()).asLong());
    }

    @Test
    void holdersNotSeenForTheKeyTtlArePruned() {
        long now = now();
        hold("conv-1", "a:1", now - BLOCK_TTL - 10);
        hold("conv-1", "b:1", now - 60);
        CacheAwareSelection selection = run(demand("conv", 1000, 1100), ABC);
        assertEquals("b:1", selection.host(), "the stale holder a earns nothing");
        assertEquals(1, selection.depth());
        assertFalse(holdersOf("conv-1").contains("a:1"));
    }

    @Test
    void aBlockKeepsAtMostMaxHoldersDroppingTheLeastRecentlySeen() {
        long now = now();
        List<String> hosts = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            hosts.add("h" + i + ":1");
            hold("conv-1", "h" + i + ":1", now - 100 + i);
        }
        hosts.add("new:1");
        // Every old holder is busy: the new host wins and becomes a holder.
        for (int i = 0; i < 10; i++) {
            load("h" + i + ":1", 100_000);
        }
        CacheAwareSelection selection = run(demand("conv", 100), hosts);
        assertEquals("new:1", selection.host());
        Set<String> kept = holdersOf("conv-1");
        assertEquals(8, kept.size(), kept.toString());
        assertTrue(kept.contains("new:1"));
        for (int i = 0; i < 3; i++) {
            assertFalse(kept.contains("h" + i + ":1"), "the oldest go first: " + kept);
        }
    }

    @Test
    void theHostWithTheLeastCostBelowTheCapWinsAndAFullClusterIsRejected() {
        CacheAwareSelection.Settings capped = settings(2, 0, 0, 8);
        hold("conv-1", "a:1", now());
        redis.call("HSET", KEYS.inflight(), "a:1", "2", "b:1", "1", "c:1", "2");
        load("b:1", 50_000);
        CacheAwareSelection selection = run(demand("conv", 1000), ABC, capped, 0, lease());
        assertEquals("b:1", selection.host(), "a and c are at the cap, whatever their cost");
        assertEquals(2, selection.count());

        String id = lease();
        CacheAwareSelection full = run(demand("conv", 1000), ABC, capped, 0, id);
        assertTrue(full.full());
        assertEquals(2, full.count());
        assertTrue(redis.call("ZSCORE", KEYS.cacheAwareLeases(), id).isNull(), "no lease for a rejected request");
        assertEquals(50_000 + 1000, loadOf("b:1"));
    }

    @Test
    void everyKeyTheScriptWritesHasATtl() {
        run(demand("conv", 100, 200), ABC, settings(0, 30, 2048, 8), 0, lease());
        assertTtlBetween(KEYS.inflight(), 3500, 3600);
        assertTtlBetween(KEYS.load(), 3500, 3600);
        assertTtlBetween(KEYS.cacheAwareLeases(), 3500, 3600);
        assertTtlBetween(KEYS.cacheAwareLeaseInfo(), 3500, 3600);
        assertTtlBetween(KEYS.cacheAwareCleaned(), 3500, 3600);
        assertTtlBetween(KEYS.cacheAwareRouted(), 3500, 3600);
        assertTtlBetween(KEYS.holders("conv-1"), 1700, BLOCK_TTL);
        assertTtlBetween(KEYS.holders("conv-2"), 1700, BLOCK_TTL);
        for (RespValue key : redis.call("KEYS", "*").elements()) {
            assertTrue(redis.call("TTL", key.asString()).asLong() > 0, key.asString() + " has no TTL");
        }
    }

    @Test
    void everyKeyOfACallSharesOneHashSlot() {
        RedisCommand call =
                CacheAwareSelection.command(KEYS, demand("conv", 10, 20, 30), ABC, NONE, PLAIN, 0, lease(), 0);
        List<String> keys = new ArrayList<>(call.keys());
        keys.addAll(CacheAwareSelection.release(KEYS, "0000000000000001", PLAIN).keys());
        keys.addAll(CacheAwareSelection.firstToken(KEYS, "0000000000000001").keys());
        assertEquals(15, call.keys().size());
        for (String key : keys) {
            int open = key.indexOf('{');
            assertEquals(KEYS.hashTag(), key.substring(open, key.indexOf('}', open) + 1), key);
        }
    }

    @Test
    void theCleanupDropsHostsThatLeftTheCluster() {
        load("gone:1", 700);
        redis.call("HSET", KEYS.inflight(), "gone:1", "3", "down:1", "1");
        load("down:1", 10);
        RespValue reply = redis.run(
                command(demand("x", 10), Arrays.asList("a:1"), Collections.singletonList("down:1"), PLAIN, 0, lease()));
        assertNotNull(CacheAwareSelection.parse(reply));
        assertTrue(redis.call("HGET", KEYS.load(), "gone:1").isNull());
        assertTrue(redis.call("HGET", KEYS.inflight(), "gone:1").isNull());
        assertEquals(10, loadOf("down:1"), "an unhealthy host keeps its work");
    }

    private void assertTtlBetween(String key, long low, long high) {
        long ttl = redis.call("TTL", key).asLong();
        assertTrue(ttl >= low && ttl <= high, key + " TTL " + ttl);
    }
}
