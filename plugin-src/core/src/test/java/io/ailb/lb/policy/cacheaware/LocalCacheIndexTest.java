package io.ailb.lb.policy.cacheaware;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.lb.request.RequestParser;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The local index's bounds: blocks, hosts and block expiry. Its decisions are LocalIndexDifferentialTest's. */
class LocalCacheIndexTest {
    private static final String SERVICE = "outbound|8000||llm.static";
    private static final List<String> HOSTS = Arrays.asList("10.0.0.1:8000", "10.0.0.2:8000", "10.0.0.3:8000");
    private static final List<String> NONE = Collections.emptyList();
    private static final List<Integer> NO_TOKENS = Collections.emptyList();
    private static final long NOW = 1_700_000_000L;
    private static final long LEASE_TTL = 600;
    private static final int TTL = 1800;
    /** overloadQueueRequests' default. */
    private static final double OVERLOAD_QUEUE_REQUESTS = 4;

    private static LocalCacheIndex index(int maxBlocks) {
        return index(maxBlocks, CacheAwarePolicy.DEFAULT_PREFILL_TOKENS_PER_SECOND);
    }

    /** An index assuming instances that prefill {@code prefillTokensPerSecond}. */
    private static LocalCacheIndex index(int maxBlocks, double prefillTokensPerSecond) {
        return new LocalCacheIndex(
                maxBlocks,
                CacheAwarePolicy.MAX_HOLDERS,
                0,
                0,
                TTL,
                30,
                OVERLOAD_QUEUE_REQUESTS,
                0,
                prefillTokensPerSecond,
                LEASE_TTL);
    }

    /** Block hashes numbered from {@code first}: 32 hex digits each. */
    private static List<String> blocks(long first, int count) {
        List<String> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String digits = Long.toHexString(first + i);
            StringBuilder hash = new StringBuilder("f00d");
            for (int pad = digits.length(); pad < 28; pad++) {
                hash.append('0');
            }
            out.add(hash.append(digits).toString());
        }
        return out;
    }

    private static List<Integer> tokens(int count, int perBlock) {
        List<Integer> out = new ArrayList<>(count);
        for (int i = 1; i <= count; i++) {
            out.add(i * perBlock);
        }
        return out;
    }

    /** Routes one request, and ends it at once (admitted, then released): the index keeps only what it holds. */
    private static LocalCacheIndex.Choice route(
            LocalCacheIndex index, List<String> hashes, List<String> healthy, int random, long now) {
        LocalCacheIndex.Choice choice = index.select(
                SERVICE, hashes, tokens(hashes.size(), 100), hashes.size() * 100, healthy, NONE, random, now);
        assertFalse(choice.full);
        index.admit(choice.host, choice.work, now * 1000, choice.user);
        index.release(choice.host, choice.work, choice.work, true, choice.user, now);
        return choice;
    }

    /** Routes one request and admits it; it runs until its release. */
    private static LocalCacheIndex.Choice start(
            LocalCacheIndex index, List<String> hashes, List<String> healthy, long now) {
        LocalCacheIndex.Choice choice =
                index.select(SERVICE, hashes, tokens(hashes.size(), 100), hashes.size() * 100, healthy, NONE, 0, now);
        index.admit(choice.host, choice.work, now * 1000, choice.user);
        return choice;
    }

    /**
     * An index judging evictions with a KV cache of 1,000 tokens where a 600-token conversation on a ended at
     * {@code NOW + 1}, after 1,100 tokens of another came and went while it ran.
     */
    private static LocalCacheIndex endedAfterOthersRan() {
        LocalCacheIndex index = index(4096);
        index.judgeEvictionsWith(1000);
        LocalCacheIndex.Choice ran = start(index, blocks(1, 6), List.of("a"), NOW);
        route(index, blocks(100, 11), List.of("a"), 0, NOW);
        index.release(ran.host, 0, ran.work, false, ran.user, NOW + 1);
        return index;
    }

    /** As the script's test of the same name: its ended lease is this index's record of the end. */
    @Test
    void aBlockOfAnEndedRequestCountsAsUsedUntilItsEnd() {
        List<String> onlyA = List.of("a");
        List<String> ab = List.of("a", "b");
        LocalCacheIndex index = endedAfterOthersRan();
        LocalCacheIndex.Choice next = start(index, blocks(1, 7), ab, NOW + 2);
        assertEquals("a", next.host);
        assertEquals(6, next.depth, "1,100 written since its routing, none since its end: still held");
        index.release(next.host, 0, next.work, false, next.user, NOW + 2);

        // 1,100 tokens written to a since the turn after it ended: gone.
        route(index, blocks(200, 11), onlyA, 0, NOW + 3);
        assertEquals(0, start(index, blocks(1, 7), ab, NOW + 4).depth);

        // An end older than the lease TTL is forgotten: the count since its routing decides.
        assertEquals(6, start(endedAfterOthersRan(), blocks(1, 7), ab, NOW + 1 + LEASE_TTL).depth, "within the TTL");
        assertEquals(0, start(endedAfterOthersRan(), blocks(1, 7), ab, NOW + 2 + LEASE_TTL).depth, "past it");

        // Weighed against the room the requests running there leave: 500 tokens in flight on a, then 500 or 501
        // written since the end.
        for (int since : new int[] {500, 501}) {
            LocalCacheIndex roomy = endedAfterOthersRan();
            LocalCacheIndex.Choice inFlight =
                    roomy.select(SERVICE, blocks(300, 1), List.of(500), 500, onlyA, NONE, 0, NOW + 1);
            roomy.admit(inFlight.host, inFlight.work, (NOW + 1) * 1000, inFlight.user);
            if (since > 500) {
                LocalCacheIndex.Choice more = roomy.select(
                        SERVICE, blocks(400, 1), List.of(since - 500), since - 500, onlyA, NONE, 0, NOW + 1);
                roomy.admit(more.host, more.work, (NOW + 1) * 1000, more.user);
                roomy.release(more.host, more.work, more.work, true, more.user, NOW + 1);
            }
            assertEquals(since == 500 ? 6 : 0, start(roomy, blocks(1, 7), ab, NOW + 2).depth, since + " since its end");
        }
    }

    @Test
    void unseenFirstTokensSettleInTheirOrderAndTheQueueStaysBounded() {
        LocalCacheIndex index = index(16);
        List<Long> settled = new ArrayList<>();
        index.expectUnseenFirstToken(300, () -> settled.add(300L));
        index.expectUnseenFirstToken(100, () -> settled.add(100L));
        index.expectUnseenFirstToken(200, () -> settled.add(200L));
        index.settleUnseenFirstTokens(99);
        assertEquals(List.of(), settled, "none expected yet");
        index.settleUnseenFirstTokens(200);
        assertEquals(List.of(100L, 200L), settled, "every one expected by now, earliest first");

        for (int i = 1; i < LocalCacheIndex.MAX_UNSEEN_FIRST_TOKENS; i++) {
            index.expectUnseenFirstToken(1_000_000 + i, () -> settled.add(-1L));
        }
        assertEquals(2, settled.size(), "full: 300 and the 16,383 far ones");
        index.expectUnseenFirstToken(2_000_000, () -> settled.add(2_000_000L));
        assertEquals(List.of(100L, 200L, 300L), settled, "one more: the earliest counts as come now");
    }

    @Test
    void aMillionDistinctBlocksKeepTheIndexAtItsCapAndAKnownPrefixRoutesToItsHost() {
        LocalCacheIndex index = index(CacheAwarePolicy.LOCAL_MAX_BLOCKS);
        List<String> known = blocks(1L << 40, 4);
        String home = route(index, known, HOSTS, 1, NOW).host;
        List<String> firstFlood = blocks(0, 16);
        int random = 0;
        for (long first = 0; first < 1_000_000; first += 16) {
            route(index, blocks(first, 16), HOSTS, random++, NOW);
            assertTrue(index.blocks() <= CacheAwarePolicy.LOCAL_MAX_BLOCKS);
            if (first % 16_000 == 0) {
                // Used now and then, the known prefix stays among the recently used blocks.
                assertEquals(home, route(index, known, HOSTS, random++, NOW).host);
            }
        }
        assertEquals(CacheAwarePolicy.LOCAL_MAX_BLOCKS, index.blocks());
        assertEquals(HOSTS.size(), index.hostsTracked());

        for (int random2 = 0; random2 < 6; random2++) {
            LocalCacheIndex.Choice again = route(index, known, HOSTS, random2, NOW);
            assertEquals(home, again.host);
            assertEquals(4, again.depth, "every block of the known prefix is still held");
            assertEquals(0, again.work);
        }
        LocalCacheIndex.Choice evicted = route(index, firstFlood, HOSTS, 0, NOW);
        assertEquals(0, evicted.depth, "the least recently used blocks were evicted");
    }

    @Test
    void aBlockIsForgottenRedisKeyTtlAfterItsLastRequest() {
        LocalCacheIndex index = index(1024);
        List<String> conversation = blocks(7, 3);
        String home = route(index, conversation, HOSTS, 0, NOW).host;
        assertEquals(3, route(index, conversation, HOSTS, 1, NOW + TTL - 1).depth);
        // Each request refreshes it: still held a second before its TTL runs out, forgotten when it does.
        assertEquals(home, route(index, conversation, HOSTS, 2, NOW + 2 * TTL - 2).host);
        LocalCacheIndex.Choice late = route(index, conversation, HOSTS, 0, NOW + 3 * TTL - 2);
        assertEquals(0, late.depth);
        assertEquals(300, late.work);
    }

    @Test
    void aHostThatLeftLosesItsCountsAndItsIdOnceNoBlockListsIt() {
        LocalCacheIndex index = index(1024);
        LocalCacheIndex.Choice held = index.select(
                SERVICE, blocks(100, 2), tokens(2, 100), 200, Collections.singletonList("10.0.0.9:8000"), NONE, 0, NOW);
        index.admit(held.host, held.work, NOW * 1000, held.user);
        assertEquals(1, index.inflightOf("10.0.0.9:8000"));
        assertEquals(200, index.queuedOf("10.0.0.9:8000"));

        // Still known while unhealthy: counts kept.
        index.select(SERVICE, NONE, NO_TOKENS, 10, HOSTS, Collections.singletonList("10.0.0.9:8000"), 0, NOW);
        assertEquals(1, index.inflightOf("10.0.0.9:8000"));
        // Gone from the service: counts dropped; its id stays while its blocks list it.
        index.select(SERVICE, NONE, NO_TOKENS, 10, HOSTS, NONE, 0, NOW);
        assertEquals(0, index.inflightOf("10.0.0.9:8000"));
        assertEquals(0, index.queuedOf("10.0.0.9:8000"));
        assertEquals(4, index.hostsTracked());
        // Its late release changes nothing.
        index.release(held.host, held.work, held.work, true, held.user, NOW);
        assertEquals(0, index.inflightOf("10.0.0.9:8000"));

        // Once its blocks expire, the next decision frees its id.
        index.select(SERVICE, blocks(100, 2), tokens(2, 100), 200, HOSTS, NONE, 0, NOW + TTL);
        assertEquals(3, index.hostsTracked());
    }

    @Test
    void departedHostsAreDroppedAtTheFirstDecisionOfEachCleanInterval() {
        LocalCacheIndex index = new LocalCacheIndex(
                1024,
                CacheAwarePolicy.MAX_HOLDERS,
                0,
                60,
                TTL,
                30,
                OVERLOAD_QUEUE_REQUESTS,
                0,
                CacheAwarePolicy.DEFAULT_PREFILL_TOKENS_PER_SECOND,
                LEASE_TTL);
        List<String> one = Collections.singletonList("10.0.0.9:8000");
        LocalCacheIndex.Choice held = index.select(SERVICE, NONE, NO_TOKENS, 10, one, NONE, 0, NOW);
        index.admit(held.host, held.work, NOW * 1000, held.user);
        // The first decision cleaned at NOW; a host briefly missing from the list keeps its count until NOW + 60.
        index.select(SERVICE, NONE, NO_TOKENS, 10, HOSTS, NONE, 0, NOW + 59);
        assertEquals(1, index.inflightOf("10.0.0.9:8000"));
        index.select(SERVICE, NONE, NO_TOKENS, 10, HOSTS, NONE, 0, NOW + 60);
        assertEquals(0, index.inflightOf("10.0.0.9:8000"));
    }

    @Test
    void theSamePromptSentToTwoServicesIsTwoBlocks() {
        LocalCacheIndex index = index(1024);
        List<String> prompt = blocks(5, 2);
        route(index, prompt, HOSTS, 0, NOW);
        LocalCacheIndex.Choice other =
                index.select("outbound|8000||other.static", prompt, tokens(2, 100), 200, HOSTS, NONE, 0, NOW);
        assertEquals(0, other.depth);
        assertEquals(4, index.blocks());
    }

    @Test
    void aFullServiceAnswersWithTheLeastCountedHostAndCountsNothing() {
        LocalCacheIndex index = new LocalCacheIndex(
                1024,
                CacheAwarePolicy.MAX_HOLDERS,
                1,
                0,
                TTL,
                30,
                OVERLOAD_QUEUE_REQUESTS,
                0,
                CacheAwarePolicy.DEFAULT_PREFILL_TOKENS_PER_SECOND,
                LEASE_TTL);
        for (int i = 0; i < HOSTS.size(); i++) {
            LocalCacheIndex.Choice choice = index.select(SERVICE, NONE, NO_TOKENS, 10, HOSTS, NONE, 0, NOW);
            assertFalse(choice.full);
            index.admit(choice.host, choice.work, NOW * 1000, choice.user);
        }
        LocalCacheIndex.Choice full = index.select(SERVICE, blocks(1, 1), tokens(1, 10), 10, HOSTS, NONE, 4, NOW);
        assertTrue(full.full);
        assertEquals(HOSTS.get(4 % HOSTS.size()), full.host);
        assertEquals(1, full.count);
        assertEquals(0, index.blocks(), "a full answer records no block");
        for (String host : HOSTS) {
            assertEquals(1, index.inflightOf(host));
        }
        index.release(HOSTS.get(0), 10, 10, true, 0, NOW);
        LocalCacheIndex.Choice freed = index.select(SERVICE, NONE, NO_TOKENS, 10, HOSTS, NONE, 0, NOW);
        assertEquals(HOSTS.get(0), freed.host);
        assertEquals(1, freed.count);
    }

    /** A bodyless request at {@code nowMillis}: it goes to the least cost of queue and in flight. */
    private static LocalCacheIndex.Choice bodyless(LocalCacheIndex index, List<String> healthy, long nowMillis) {
        return index.select(SERVICE, NONE, NO_TOKENS, NO_TOKENS, 0, null, healthy, NONE, 0, nowMillis, true);
    }

    @Test
    void aQueueCountsLessWhatItsInstanceHasPrefilledSinceItBeganDraining() {
        LocalCacheIndex index = index(1024);
        long t0 = NOW * 1000;
        List<String> ab = Arrays.asList("a", "b");
        bodyless(index, ab, t0);
        index.admit("a", 1000, t0, 0);
        index.admit("b", 900, t0 + 90, 0);
        // 100 ms later a has prefilled its 1,000 tokens at 10,000 a second; b, 90 ms younger, 100 of its 900.
        LocalCacheIndex.Choice next = bodyless(index, ab, t0 + 100);
        assertEquals("a", next.host, "the longer queue, nearly done");
        assertEquals(0, next.tokensAhead, "none of it left ahead of the request");
        assertEquals(1000, index.queuedOf("a"), "the queue itself stays whole until its first token");
    }

    @Test
    void firstTokensTheGatewaySawTeachTheRateQueuesDrainAt() {
        // At 5,000 a second a has 500 of its 1,000 tokens left (at the assumed 10,000 it would have none).
        assertEquals("b", afterDrainsOfFiveThousandTokensASecond(index(1024), true, 1000, 400));
    }

    @Test
    void firstTokensTakenAsComeWhenDueTeachNothing() {
        assertEquals(
                "a",
                afterDrainsOfFiveThousandTokensASecond(index(1024), false, 1000, 400),
                "still the assumed 10,000 tokens a second");
    }

    @Test
    void queuesThatDrainSlowerThanAnInstancePrefillsCountWhole() {
        // Instances assumed to prefill 4,000 tokens a second: queues draining at 5,000 are prefill-bound, and a has
        // 500 of its 1,000 tokens left against b's 600.
        assertEquals("a", afterDrainsOfFiveThousandTokensASecond(index(1024, 4000), true, 1000, 600));
        // At 20,000 a second they are not: something else holds them, and a's 1,000 tokens count whole.
        assertEquals("b", afterDrainsOfFiveThousandTokensASecond(index(1024, 20_000), true, 1000, 600));
    }

    /**
     * Where a bodyless request goes between a, whose {@code workA} tokens began draining 100 ms ago, and b, with
     * {@code workB} just queued, once host c's 64 first tokens (seen by the gateway, or only taken as come when due)
     * each came 100 ms after its 500 tokens began draining: 5,000 tokens a second.
     */
    private static String afterDrainsOfFiveThousandTokensASecond(
            LocalCacheIndex index, boolean saw, long workA, long workB) {
        long at = NOW * 1000;
        List<String> c = Collections.singletonList("c");
        for (int i = 0; i < 64; i++, at += 1000) {
            bodyless(index, c, at);
            index.admit("c", 500, at, 0);
            index.firstToken(SERVICE, "c", 500, at + 100, saw);
        }
        List<String> ab = Arrays.asList("a", "b");
        bodyless(index, ab, at);
        index.admit("a", workA, at, 0);
        index.admit("b", workB, at + 100, 0);
        return bodyless(index, ab, at + 100).host;
    }

    private static LocalCacheIndex.Choice routeInSession(LocalCacheIndex index, String session, int random, long now) {
        LocalCacheIndex.Choice choice =
                index.select(SERVICE, NONE, NO_TOKENS, NO_TOKENS, 1000, session, HOSTS, NONE, random, now * 1000, true);
        index.admit(choice.host, choice.work, now * 1000, choice.user);
        index.release(choice.host, choice.work, choice.work, true, choice.user, now);
        return choice;
    }

    @Test
    void sessionsAreBoundedTheOldestForgottenFirstAndExpireWithTheBlocks() {
        LocalCacheIndex index = index(1024);
        String recent = null;
        String recentHost = null;
        for (int s = 0; s < LocalCacheIndex.MAX_SESSIONS + 5_000; s++) {
            recent = "5e55" + Integer.toHexString(s);
            recentHost = routeInSession(index, recent, s, NOW).host;
            assertTrue(index.sessions() <= LocalCacheIndex.MAX_SESSIONS);
        }
        assertEquals(LocalCacheIndex.MAX_SESSIONS, index.sessions());
        for (int random = 0; random < 6; random++) {
            LocalCacheIndex.Choice again = routeInSession(index, recent, random, NOW);
            assertEquals(recentHost, again.host, "the most recent session is remembered");
            assertEquals(1000, again.matchedTokens);
        }
        // The first session was forgotten: nothing matches, whichever host it lands on.
        assertEquals(0, routeInSession(index, "5e550", 0, NOW).matchedTokens);
        // A session not seen for redisKeyTTL seconds holds nothing either.
        assertEquals(0, routeInSession(index, recent, 0, NOW + TTL).matchedTokens);
    }

    /**
     * The script's rule for a prompt at the parser's block cap: {@code held} blocks of 100 tokens in all, routed twice
     * to a (the first time on a tie of idle hosts; each time with a block of its own after them), then a busy (4 in
     * flight) and b and c (2 each) with 200 tokens queued each; the request goes on past the shared blocks to 1,100
     * tokens. Walking to the block before its folded last one it continues the prefix and stays on a (plain in-flight
     * weight: a 200 + w × 1000 + 4 × 30 against b's 200 + w × 1100 + 2 × 30); one block fewer starts a conversation,
     * whose counts in flight weigh three times, and goes elsewhere.
     */
    private static String afterLongPrefixOnA(int held) {
        LocalCacheIndex index = index(4096);
        List<String> healthy = Arrays.asList("a", "b", "c");
        for (int turn = 0; turn < 2; turn++) {
            LocalCacheIndex.Choice choice = selectAfterLongPrefix(index, held, turn, healthy);
            index.admit(choice.host, choice.work, (NOW + turn) * 1000, choice.user);
            index.release(choice.host, choice.work, choice.work, true, choice.user, NOW + turn);
        }
        for (String host : healthy) {
            // Admitted when the next decision comes: no time to drain any of it.
            index.admit(host, 200, (NOW + 2) * 1000, 0);
            index.admit(host, 0, (NOW + 2) * 1000, 0);
        }
        index.admit("a", 0, (NOW + 2) * 1000, 0);
        index.admit("a", 0, (NOW + 2) * 1000, 0);
        return selectAfterLongPrefix(index, held, 2, healthy).host;
    }

    /** {@code held} shared blocks (1 token each up to 100 in all), then a block of turn {@code turn}'s own to 1,100. */
    private static LocalCacheIndex.Choice selectAfterLongPrefix(
            LocalCacheIndex index, int held, int turn, List<String> healthy) {
        List<String> hashes = blocks(1, held);
        hashes.add(blocks(10_000 + turn, 1).get(0));
        List<Integer> tokens = new ArrayList<>();
        for (int i = 1; i <= held; i++) {
            tokens.add(Math.min(i, 100));
        }
        tokens.add(1100);
        return index.select(SERVICE, hashes, tokens, 1100, healthy, NONE, 0, NOW + turn);
    }

    @Test
    void aPromptAtTheBlockCapThatWalksToItsFoldedBlockContinuesItsPrefix() {
        assertEquals("a", afterLongPrefixOnA(RequestParser.MAX_PREFIX_BLOCKS - 1));
        assertNotEquals("a", afterLongPrefixOnA(RequestParser.MAX_PREFIX_BLOCKS - 2));
    }
}
