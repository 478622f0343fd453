package io.ailb.lb.policy.cacheaware;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import io.ailb.lb.util.Rng;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * The local index against cache_aware.lua on a real Redis: the same random sequence of requests (prefixes of a few
 * conversations on shared system prompts, bodyless requests, hosts healthy, unhealthy or gone), first tokens and
 * releases interleaved, the same random tie-break values and the same clock. At every step both must choose the same
 * host with the same count, depth, matched tokens, cost and work (or both answer "full"), and hold the same in-flight
 * counts and queues afterwards.
 *
 * <p>The clock: the script reads Redis TIME, which a test cannot set, so it runs here with that one call replaced by a
 * read of a test key holding the test's clock (the replacement is asserted to happen exactly once, so an edit of that
 * line fails this test rather than letting it drift). Redis expires block keys on its own clock, so the test deletes a
 * block key once the test clock passes its expiry (redisKeyTTL after the last request that routed through it), which
 * is when the local index forgets the block too. The lease TTL is a year, so no lease heals here: the local index
 * releases exactly and has no leases.
 */
class LocalIndexDifferentialTest extends FreshRedisTest {
    private static final RedisKeys KEYS = RedisKeys.of("route-d", "outbound|80||llm.dns");
    private static final String CLOCK_KEY = "test:clock";
    private static final String TIME_CALL = "redis.call('TIME')[1]";
    private static final LuaScript SCRIPT =
            withTestClock(LuaResources.script(LocalIndexDifferentialTest.class, "cache_aware"));
    private static final LuaScript RELEASE =
            LuaResources.script(LocalIndexDifferentialTest.class, "cache_aware_release");
    private static final LuaScript FIRST_TOKEN =
            LuaResources.script(LocalIndexDifferentialTest.class, "cache_aware_first_token");
    private static final List<String> HOSTS =
            Arrays.asList("10.0.0.1:8000", "10.0.0.2:8000", "10.0.0.3:8000", "10.0.0.4:8000", "10.0.0.5:8000");
    private static final int BLOCK_TTL = 90;
    /**
     * The prefill rate assumed: its engine's queues drain faster than that in some stretches of a run and slower in
     * others, so the drain is compared both counted and left out (each decided by the learned throughput).
     */
    private static final double PREFILL_TOKENS_PER_SECOND = 1000;

    private static final RedisTarget REDIS = new RedisTarget("redis.static", 6379, "", "", 3000, 0);
    private static final int YEAR = 31_536_000;
    /**
     * A KV cache about one conversation's size, so blocks are judged evicted within the run (with 3000, nothing a
     * decision depends on ever was: the system prompts are used too often).
     */
    private static final long EVICTING_KV_CACHE = 1500;
    /** What the simulator sweeps measured as a start (docs/benchmarks.md). */
    private static final double RECENT_WORK_SHARE = 0.25;

    private static LuaScript withTestClock(LuaScript script) {
        String source = script.source();
        int at = source.indexOf(TIME_CALL);
        assertTrue(at >= 0 && source.indexOf(TIME_CALL, at + 1) < 0, "cache_aware.lua reads TIME exactly once");
        String replaced = source.substring(0, at) + "redis.call('GET', '" + CLOCK_KEY + "')"
                + source.substring(at + TIME_CALL.length());
        return new LuaScript("cache_aware_test_clock", replaced);
    }

    /** One request still open in both: its lease in Redis, its host and queued work in the local index. */
    private static final class Open {
        final String lease;
        final String host;
        final long admitted;
        /** Its number in the local index, as the lease in Redis: its blocks are not judged evicted until it ends. */
        final int user;

        final long requestsAhead;
        final long tokensAhead;
        /** The gateway's clock in ms when it was routed; -1 when its response does not stream (not timed). */
        final long routedAtMillis;

        long work;
        boolean waiting = true;

        Open(String lease, LocalCacheIndex.Choice choice, long routedAtMillis) {
            this.lease = lease;
            this.host = choice.host;
            this.admitted = choice.work;
            this.user = choice.user;
            this.work = choice.work;
            this.requestsAhead = choice.requestsAhead;
            this.tokensAhead = choice.tokensAhead;
            this.routedAtMillis = routedAtMillis;
        }
    }

    private final Rng random = new Rng(0x5EED_CAC4EL);
    private final Map<String, Long> blockExpiry = new HashMap<>();
    private long now = 1_700_000_000L;
    private long leases;
    /** Unstreamed requests whose first token counted as come at its expected time, before any other end. */
    private int unseenSettled;
    /** Unstreamed requests routed under overload, whose work counts until their end. */
    private int heldToEnd;
    /** False: no request streams, as from clients that never do (no fit is learned). */
    private boolean clientsStream = true;
    /** False: the local index is not told which requests are in flight, so it keeps none of their blocks. */
    private boolean localKnowsRequestsInFlight = true;
    /**
     * The first steps of every 500 in which the clock stands still, every host is healthy (a departed host's queue is
     * dropped) and no request finishes: queues build up.
     */
    private int stalledSteps;

    @Test
    void theLocalIndexDecidesAsTheScriptWithTheDefaultWeights() {
        run(settings(0, 30, 4), 2500, 0xA1L);
    }

    @Test
    void theLocalIndexDecidesAsTheScriptUnderACapAndHeavierWeights() {
        run(settings(3, 120, 0.5), 2500, 0xB2L);
    }

    @Test
    void theLocalIndexDecidesAsTheScriptWhenNoClientStreams() {
        clientsStream = false;
        // Stalls build the queues of four typical requests from which unstreamed ones count until their end.
        stalledSteps = 60;
        run(settings(0, 120, 0.5), 2500, 0xE5L);
    }

    @Test
    void theLocalIndexDecidesAsTheScriptWithWeightOneAndNoInflightTerm() {
        run(settings(0, 0, 0), 1500, 0xC3L);
    }

    @Test
    void theLocalIndexJudgesEvictionsAndRoomAsTheScript() {
        run(settings(0, 30, 4, EVICTING_KV_CACHE, 0), 2500, 0xD4L);
    }

    /** The run above exercises evictions: an index that does not judge them parts from the script. */
    @Test
    void anIndexBlindToEvictionsDecidesOtherwiseOnThatRun() {
        CacheAwareSelection.Settings script = settings(0, 30, 4, EVICTING_KV_CACHE, 0);
        assertThrows(
                AssertionFailedError.class,
                () -> run(script, script.forDecision(0, script.prefillTokensPerSecond()), 2500, 0xD4L));
    }

    /** That run also keeps blocks of requests in flight: an index that ignores them parts from the script. */
    @Test
    void anIndexBlindToRequestsInFlightDecidesOtherwiseOnThatRun() {
        localKnowsRequestsInFlight = false;
        assertThrows(AssertionFailedError.class, () -> run(settings(0, 30, 4, EVICTING_KV_CACHE, 0), 2500, 0xD4L));
    }

    @Test
    void theLocalIndexWeighsRecentWorkAsTheScript() {
        run(settings(0, 30, 4, 0, RECENT_WORK_SHARE), 2500, 0xE5L);
    }

    /** The run above exercises the recent term: an index without it parts from the script. */
    @Test
    void anIndexWithoutTheRecentTermDecidesOtherwiseOnThatRun() {
        assertThrows(
                AssertionFailedError.class,
                () -> run(settings(0, 30, 4, 0, RECENT_WORK_SHARE), settings(0, 30, 4, 0, 0), 2500, 0xE5L));
    }

    private static CacheAwareSelection.Settings settings(int cap, double inflightTokens, double overloadQueueRequests) {
        return settings(cap, inflightTokens, overloadQueueRequests, 0, 0);
    }

    private static CacheAwareSelection.Settings settings(
            int cap, double inflightTokens, double overloadQueueRequests, long kvCacheTokens, double recentWorkShare) {
        // cleanInterval 0: the script drops departed hosts at every call, as the local index does.
        return new CacheAwareSelection.Settings(
                new InflightSelection.Settings(cap, 0, 3600, BLOCK_TTL, YEAR),
                inflightTokens,
                overloadQueueRequests,
                CacheAwarePolicy.MAX_HOLDERS,
                kvCacheTokens,
                recentWorkShare,
                PREFILL_TOKENS_PER_SECOND);
    }

    private void run(CacheAwareSelection.Settings settings, int steps, long seed) {
        run(settings, settings, steps, seed);
    }

    /** The script decides with {@code settings}, the local index with {@code localSettings}. */
    private void run(
            CacheAwareSelection.Settings settings, CacheAwareSelection.Settings localSettings, int steps, long seed) {
        Rng traffic = new Rng(seed);
        LocalCacheIndex local = CacheAwarePolicy.localIndex(localSettings, CacheAwarePolicy.LOCAL_MAX_BLOCKS);
        local.judgeEvictionsWith(localSettings.kvCacheTokens());
        List<List<String>> conversations = conversations(traffic);
        List<Open> open = new ArrayList<>();
        int routed = 0;
        int full = 0;
        int matched = 0;
        int inSession = 0;
        int taught = 0;
        for (int step = 0; step < steps; step++) {
            boolean stalled = step % 500 < stalledSteps;
            if (!stalled) {
                now += traffic.nextInt(10) < 9 ? traffic.nextInt(3) : 40 + traffic.nextInt(80);
            }
            redis.call("SET", CLOCK_KEY, Long.toString(now));
            expireBlocks();
            if (!stalled) {
                finishSome(traffic, local, open, settings);
            }

            List<String> healthy = new ArrayList<>();
            List<String> unhealthy = new ArrayList<>();
            for (String host : HOSTS) {
                int draw = traffic.nextInt(20);
                if (draw < 15 || stalled) {
                    healthy.add(host);
                } else if (draw < 18) {
                    unhealthy.add(host);
                }
            }
            if (healthy.isEmpty()) {
                healthy.add(HOSTS.get(traffic.nextInt(HOSTS.size())));
                unhealthy.remove(healthy.get(0));
            }
            CacheAwareSelection.Demand demand = request(traffic, conversations);
            int randomValue = random.nextInt(InflightSelection.randomBound());
            String lease = InflightSelection.leaseId(0x3000_0000_0000L + leases++);

            RedisCommand production = CacheAwareSelection.command(
                    KEYS, demand, healthy, unhealthy, settings, randomValue, lease, now * 1000);
            RespValue reply = redis.run(RedisCommand.script(SCRIPT, production.keys(), production.args()));
            CacheAwareSelection lua = CacheAwareSelection.parse(reply);
            assertNotNull(lua, "step " + step + ": unexpected reply " + reply);
            local.settleUnseenFirstTokens(now * 1000);
            LocalCacheIndex.Choice java = local.select(
                    KEYS.hashTag(),
                    demand.blockHashes(),
                    demand.blockTokens(),
                    demand.answeredTokens(),
                    demand.promptTokens(),
                    demand.sessionHash(),
                    healthy,
                    unhealthy,
                    randomValue,
                    now * 1000,
                    demand.streams());

            String where = "step " + step + " (healthy " + healthy + ", " + demand.blocks() + " blocks)";
            assertEquals(lua.full(), java.full, where + ": full");
            assertEquals(lua.host(), java.host, where + ": host");
            assertEquals(lua.count(), java.count, where + ": count");
            if (lua.full()) {
                full++;
            } else {
                assertEquals(lua.depth(), java.depth, where + ": depth");
                assertEquals(lua.matchedTokens(), java.matchedTokens, where + ": matched tokens");
                assertEquals(lua.cost(), java.cost, where + ": cost");
                assertEquals(lua.work(), java.work, where + ": work");
                assertEquals(lua.firstTokenInMillis(), java.firstTokenInMillis, where + ": first token expected in");
                local.admit(java.host, java.work, now * 1000, localKnowsRequestsInFlight ? java.user : 0);
                Open request = new Open(lease, java, demand.streams() ? now * 1000 : -1);
                open.add(request);
                if (java.firstTokenInMillis == LocalCacheIndex.FIRST_TOKEN_AT_END) {
                    heldToEnd++;
                } else if (!demand.streams()) {
                    long dueAtMillis = now * 1000 + java.firstTokenInMillis;
                    local.expectUnseenFirstToken(dueAtMillis, () -> {
                        if (request.waiting) {
                            local.firstToken(KEYS.hashTag(), request.host, request.work, dueAtMillis, false);
                            request.work = 0;
                            request.waiting = false;
                            unseenSettled++;
                        }
                    });
                }
                if (local.perRequestTokens(KEYS.hashTag()) > 0) {
                    taught++;
                }
                for (String hash : demand.blockHashes()) {
                    blockExpiry.put(KEYS.holders(hash), now + BLOCK_TTL);
                }
                if (demand.sessionHash() != null) {
                    blockExpiry.put(KEYS.cacheAwareSession(demand.sessionHash()), now + BLOCK_TTL);
                    inSession++;
                }
                routed++;
                if (java.depth > 0) {
                    matched++;
                }
            }
            assertSameCounts(local, where);
        }
        // The run must have exercised what it claims to compare.
        assertTrue(routed > steps / 2, "routed " + routed);
        assertTrue(matched > routed / 4, "matched " + matched + " of " + routed);
        assertTrue(inSession > routed / 4, "in a session: " + inSession + " of " + routed);
        if (clientsStream) {
            assertTrue(
                    taught > routed / 2,
                    "decided with a learned cost per waiting request: " + taught + " of " + routed);
        } else {
            assertTrue(heldToEnd > 0, "held to their end: " + heldToEnd + " of " + routed);
        }
        assertTrue(
                unseenSettled > routed / 10,
                "unstreamed requests given their first token when due: " + unseenSettled + " of " + routed);
        if (settings.inflight().maxRequestCount() > 0) {
            assertTrue(full > 0, "no full reply in " + steps + " steps");
        }
    }

    /** Deletes the block keys whose TTL ran out on the test clock, as Redis would on its own. */
    private void expireBlocks() {
        Iterator<Map.Entry<String, Long>> it = blockExpiry.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<String, Long> entry = it.next();
            if (entry.getValue() <= now) {
                redis.call("DEL", entry.getKey());
                it.remove();
            }
        }
    }

    /** First tokens and releases of random open requests; a release may come without a first token (a reset). */
    private void finishSome(
            Rng traffic, LocalCacheIndex local, List<Open> open, CacheAwareSelection.Settings settings) {
        int events = traffic.nextInt(3);
        for (int i = 0; i < events && !open.isEmpty(); i++) {
            Open request = open.get(traffic.nextInt(open.size()));
            if (request.waiting && traffic.nextInt(3) > 0) {
                // An engine with a fixed cost per request, whose times the fit learns: 25 ms for each request waiting
                // ahead and this one, 50 µs per token ahead and its own, and a few ms of noise.
                long tokens = request.tokensAhead + request.admitted;
                long millis = 25 * (request.requestsAhead + 1) + tokens / 20 + traffic.nextInt(5);
                long at = request.routedAtMillis < 0 ? now * 1000 : request.routedAtMillis + millis;
                RedisCommand production = RedisCall.clocked(REDIS, CacheAwareSelection.firstToken(KEYS, request.lease))
                        .sentAt(at)
                        .command();
                redis.run(RedisCommand.script(FIRST_TOKEN, production.keys(), production.args()));
                local.firstToken(KEYS.hashTag(), request.host, request.work, at, true);
                if (request.routedAtMillis >= 0) {
                    local.timeFirstToken(KEYS.hashTag(), request.requestsAhead, tokens, millis);
                }
                request.work = 0;
                request.waiting = false;
            } else {
                RedisCommand production = CacheAwareSelection.release(KEYS, request.lease, settings);
                redis.run(RedisCommand.script(RELEASE, production.keys(), production.args()));
                local.release(request.host, request.work, request.admitted, request.waiting, request.user, now);
                request.work = 0;
                request.waiting = false;
                open.remove(request);
            }
        }
    }

    private void assertSameCounts(LocalCacheIndex local, String where) {
        for (String host : HOSTS) {
            assertEquals(field(KEYS.inflight(), host), local.inflightOf(host), where + ": in flight on " + host);
            assertEquals(field(KEYS.load(), host), local.queuedOf(host), where + ": queued on " + host);
            assertEquals(field(KEYS.cacheAwareWaiting(), host), local.waitingOf(host), where + ": waiting on " + host);
        }
    }

    private long field(String key, String host) {
        RespValue value = redis.call("HGET", key, host);
        return value.isNull() ? 0 : Long.parseLong(value.asString());
    }

    /**
     * Twelve conversations on three system prompts: block 1 is the shared system prompt, the next up to seven are the
     * conversation's own turns (chained hashes: a turn's hash is its conversation's and depth's alone).
     */
    private static List<List<String>> conversations(Rng traffic) {
        List<String> systems = new ArrayList<>();
        for (int s = 0; s < 3; s++) {
            systems.add(hex(traffic));
        }
        List<List<String>> out = new ArrayList<>();
        for (int c = 0; c < 12; c++) {
            List<String> blocks = new ArrayList<>();
            blocks.add(systems.get(c % systems.size()));
            for (int turn = 0; turn < 7; turn++) {
                blocks.add(hex(traffic));
            }
            out.add(blocks);
        }
        return out;
    }

    /**
     * A prefix of a random conversation with random block sizes, or (one in ten) a bodyless request; half of them name
     * their conversation as a session (sessionHeader), the bodyless ones too (a body that could not be read).
     */
    private CacheAwareSelection.Demand request(Rng traffic, List<List<String>> conversations) {
        int c = traffic.nextInt(conversations.size());
        CacheAwareSelection.Demand demand = blocksOf(traffic, conversations.get(c));
        if (traffic.nextInt(4) > 0 && clientsStream) {
            demand = demand.streaming();
        }
        return traffic.nextInt(2) == 0
                ? demand
                : demand.inSession("5e55" + conversations.get(c).get(1).substring(4));
    }

    private static CacheAwareSelection.Demand blocksOf(Rng traffic, List<String> conversation) {
        if (traffic.nextInt(10) == 0) {
            return new CacheAwareSelection.Demand(new ArrayList<>(), new ArrayList<>(), traffic.nextInt(400));
        }
        int depth = 1 + traffic.nextInt(conversation.size());
        List<Integer> tokens = new ArrayList<>();
        int total = 0;
        for (int d = 0; d < depth; d++) {
            // The system prompt is the long block; a turn is short.
            total += d == 0 ? 400 + traffic.nextInt(200) : 20 + traffic.nextInt(180);
            tokens.add(total);
        }
        // After a turn (every block but the system prompt's) the next block may open with the answer to it.
        List<Integer> answered = new ArrayList<>();
        for (int d = 0; d < depth; d++) {
            boolean answerFollows = d > 0 && d < depth - 1 && traffic.nextInt(2) == 0;
            answered.add(
                    answerFollows
                            ? tokens.get(d) + traffic.nextInt(tokens.get(d + 1) - tokens.get(d) + 1)
                            : tokens.get(d));
        }
        return new CacheAwareSelection.Demand(
                new ArrayList<>(conversation.subList(0, depth)), tokens, answered, total + traffic.nextInt(3));
    }

    private static String hex(Rng traffic) {
        String digits = Long.toHexString(traffic.nextLong()) + Long.toHexString(traffic.nextLong());
        StringBuilder out = new StringBuilder();
        for (int i = digits.length(); i < 32; i++) {
            out.append('0');
        }
        return out.append(digits).toString();
    }
}
