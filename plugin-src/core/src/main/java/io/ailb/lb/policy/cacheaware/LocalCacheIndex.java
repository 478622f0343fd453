package io.ailb.lb.policy.cacheaware;

import io.ailb.codec.hash.PrefixHash;
import io.ailb.codec.resp.RespValue;
import io.ailb.lb.request.RequestParser;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * cache_aware's state kept in one VM ({@code index: local}): what cache_aware.lua keeps in Redis — per-host in-flight
 * counts, queued prefill and requests waiting for their first token, block holders with their last use, block use
 * counts, the decayed work sums and the fit of first-token times — and the
 * same decision over it, step for step (the script's header states the rule; {@code LocalIndexDifferentialTest} runs
 * both on the same requests). What Redis mode needs leases for is exact here: the policy's response observer admits,
 * dequeues and releases each routed request once.
 *
 * <p>Where it differs from the script: the work sums are doubles where the script stores 14-digit decimal strings (a
 * relative difference below 10^-13, too small to move a decision); each VM fits the first-token times of its own
 * requests, where the script's fit takes every gateway's; the state is per service (cluster) where Redis
 * keys are per route and cluster, as two routes to one service reach the same KV caches; and the index holds at most
 * {@code maxBlocks} blocks, the least recently routed evicted first, where Redis keeps every key until it expires.
 * As in Redis, a block expires {@code redisKeyTTL} seconds after its last routed request, and departed hosts lose
 * their counts at the first decision of each cleanInterval.
 *
 * <p>Memory is bounded whatever the traffic: blocks live in parallel primitive arrays indexed by slot (chained hash
 * buckets, an LRU list, {@link CacheAwarePolicy#MAX_HOLDERS} holder slots each), grown by doubling up to
 * {@code maxBlocks}; hosts are interned to small ids, and an id is reused once its host left the service and no
 * block lists it. A decision allocates in proportion to the request's hosts only. Not thread-safe: one per VM.
 */
final class LocalCacheIndex {
    /** The script's decay of the work sums per request (about the last thousand requests). */
    private static final double DECAY = 0.999;
    /** As cache_aware's scripts: the fit of first-token times forgets by this per timed request. */
    private static final double FIT_DECAY = 0.998;
    /** Timed requests (decayed) before the fit is trusted. */
    private static final double MIN_TIMED = 50;
    /** A bound on the learned cost of one waiting request, in prompt tokens. */
    private static final double MAX_PER_REQUEST_TOKENS = 8192;
    /** The latest a first token the gateway cannot see is expected, in ms after the routing. */
    static final double MAX_FIRST_TOKEN_MS = 120_000;
    /**
     * {@link Choice#firstTokenInMillis} of an unstreamed request routed, while no streamed request has been timed
     * (clients that do not stream), with the typical queue at {@link #UNTIL_END_QUEUE} or more, as the script's: its
     * decode will crawl behind full prefill steps, and counting its work until its end weighs that backlog, which its
     * prefill alone does not.
     */
    static final long FIRST_TOKEN_AT_END = -1;
    /**
     * The typical queue, in requests, from which {@link #FIRST_TOKEN_AT_END} applies. Its own threshold, not
     * overloadQueueRequests: holding work from two requests on already doubled unstreamed TTFT at twice the trace's
     * rate, where weighing uncached tokens more from two helps.
     */
    private static final double UNTIL_END_QUEUE = 4;
    /** {@link #drainingSince} of a host whose queue has not begun draining since the VM knew it. */
    private static final long NOT_DRAINING = Long.MIN_VALUE;
    /**
     * The most requests with an unseen first token the VM keeps waiting for: 16 s of 1,000 unstreamed requests a
     * second, about 1.5 MiB of the heap (an entry and the routed request's observer it keeps alive, ~90 bytes).
     */
    static final int MAX_UNSEEN_FIRST_TOKENS = 16_384;
    /** The typical host's waiting requests from which they are no longer charged. */
    private static final double PER_REQUEST_MAX_WAITING = 2;
    /** The script's PREFILL_BOUND_GROWTH: the overload term's factor while queues drain at the prefill rate. */
    private static final double PREFILL_BOUND_GROWTH = 2;
    /** The script's MAX_WEIGHT: an uncached token never weighs more, so costs stay exact integers in a reply. */
    private static final double MAX_WEIGHT = 1e6;
    /** The script's HOT_SHARE: a block is hot when its holders carry this much more than a fair share. */
    private static final double HOT_SHARE = 1.5;
    /** Costs within this many tokens are equal, as in the script. */
    private static final double TIE = 0.01;
    /** cache_aware.lua's MAX_ROOM_WEIGHT. */
    private static final double MAX_ROOM_WEIGHT = 4;
    /** cache_aware.lua's START_INFLIGHT_FACTOR: the in-flight term's factor for a conversation on busy holders. */
    private static final double START_INFLIGHT_FACTOR = 3;
    /** cache_aware.lua's BUSY_HOLDER_MARGIN: how far over the mean in flight makes a prefix's holders busy. */
    private static final double BUSY_HOLDER_MARGIN = 1.2;
    /** cache_aware.lua's START_MIN_QUEUE: the typical queue, in requests, from which that factor applies. */
    private static final double START_MIN_QUEUE = 0.1;
    /** cache_aware.lua's BEHIND_MIN_QUEUE: the typical queue, in requests, from which holders can be behind. */
    private static final double BEHIND_MIN_QUEUE = 1;
    /** cache_aware.lua's HOLDER_PRICE: what each token of a conversation's history a host lacks costs, times the weight. */
    private static final double HOLDER_PRICE = 4;
    /** cache_aware.lua's HOLDER_MIN_INFLIGHT: the mean count in flight per host from which that price applies. */
    private static final double HOLDER_MIN_INFLIGHT = 2;
    /** cache_aware.lua's HOLDER_MAX_QUEUE: the typical queue, in requests, from which it no longer does. */
    private static final double HOLDER_MAX_QUEUE = 8;
    /** cache_aware.lua's RECENT_SECONDS: how fast a host's recent work fades. */
    private static final double RECENT_SECONDS = 5;

    private static final int INITIAL_SLOTS = 1024;
    /**
     * Sessions (sessionHeader) remembered, the least recently routed forgotten first: about 200 bytes each, so 3 MiB
     * at most. A forgotten session's next request is routed by its blocks, as one without the header.
     */
    static final int MAX_SESSIONS = 16_384;
    /** Ended requests remembered (12 bytes each): how far back a holder is judged from its request's end. */
    static final int ENDED_USERS = 8_192;

    private static final int NONE = -1;
    /** The user of a block a peer VM routed: never known to be in flight here. */
    private static final int NO_USER = 0;

    private final int maxBlocks;
    private final int maxHolders;
    private final int maxRequestCount;
    private final long cleanIntervalSeconds;
    private final long blockTtlSeconds;
    private final double inflightTokens;
    private final double recentWorkShare;
    private final double overloadQueueRequests;
    /** Prefill ms per 1,000 tokens assumed for unstreamed requests until the fit learns one (prefillTokensPerSecond). */
    private double priorMsPerKilotoken;

    /** Service, a newline and the session's hash → the session's last host, in the order they were last routed. */
    private final LinkedHashMap<String, Session> sessions = new LinkedHashMap<>();

    /** Per service: its work sums and routed counter, as the script's routed HASH per route and cluster. */
    private final Map<String, Scope> scopes = new HashMap<>();
    /** Seconds stored per holder are relative to this, so they fit an int; set by the first decision. */
    private long epoch;

    private boolean epochSet;

    // Hosts, by id.
    private final Map<String, Integer> hostIds = new HashMap<>();
    private String[] hostNames = new String[16];
    private long[] inflight = new long[16];
    private long[] queued = new long[16];
    /**
     * Per host: since when its queue has been draining, on the gateway's clock in ms: the later of its last first
     * token and the last time its queue filled from empty (cache_aware.lua's drain HASH); {@link #NOT_DRAINING} when
     * neither is known.
     */
    private long[] drainingSince = newDrainingSince(16);
    /** Per host: the tokens of its queue drained by now, set for the hosts of the current decision. */
    private long[] drainedOf = new long[16];
    /** Per host: requests routed here whose first token has not come back. */
    private long[] waiting = new long[16];
    /** Routed requests whose response does not stream, by when their first token is expected. */
    private final PriorityQueue<UnseenFirstToken> unseenFirstTokens =
            new PriorityQueue<>(Comparator.comparingLong((UnseenFirstToken u) -> u.dueAtMillis));
    /** Work of the requests in flight per host: the KV cache they take up or will (cache_aware.lua's held_h). */
    private long[] held = new long[16];
    /** Per host: prompt tokens routed to it as work (written into its KV cache), cumulative. */
    private long[] written = new long[16];
    /** Per host: its recent work as of {@link #recentAt} (rounded to a token, as the script stores it). */
    private long[] recentWork = new long[16];

    private int[] recentAt = new int[16];
    /** Per host: its recent work as of the current decision (set for its hosts when the decision charges it). */
    private double[] recentNowOf = new double[16];
    /** KV cache of one instance in tokens, set before each decision; 0 = unknown, nothing is judged evicted. */
    private long kvCacheTokens;
    /** Holder slots naming the host: its id stays while any block lists it. */
    private int[] holderRefs = new int[16];
    /** Per-decision marks: healthy in this decision, known (healthy or not) in this decision. */
    private int[] healthyMark = new int[16];

    private int[] knownMark = new int[16];
    /** The scope whose decisions last listed the host: only that scope's decisions drop it when it leaves. */
    private Scope[] hostScope = new Scope[16];

    private int[] depthOf = new int[16];
    /** Per host: the prompt tokens it holds for the current decision (matchedOn), set for its hosts once per decision. */
    private long[] matchedOf = new long[16];
    /** Per decision: the host's in-flight count and queued tokens in the gateway's other VMs (see peerLoads). */
    private long[] peerInflight = new long[16];

    private long[] peerQueued = new long[16];

    private long[] peerHeld = new long[16];

    private long[] peerWaiting = new long[16];
    /** Per decision: the host's recent work in the gateway's other VMs, as of the decision. */
    private double[] peerRecent = new double[16];
    /**
     * Host → {in flight, queued tokens, recent work, the Unix second it is as of, held KV tokens} summed over the
     * gateway's other VMs at the last exchange ({@link IndexExchange}); kept apart from this VM's own, which are the only ones it
     * publishes. Empty with one VM.
     */
    private Map<String, long[]> peerLoads = new HashMap<>();

    private int mark;
    private int hostSlots;
    private int[] freeHostIds = new int[16];
    private int freeHosts;

    // Blocks, by slot.
    private int capacity;
    private int[] buckets;
    private long[] hashHigh;
    private long[] hashLow;
    private int[] chainNext;
    private int[] newer;
    private int[] older;
    private long[] uses;
    /** The routed counter when the block was first seen (the script's "#t"). */
    private long[] firstSeen;
    /** Relative seconds of the block's last routed request: it expires blockTtl later, as its Redis key. */
    private int[] lastWritten;

    private byte[] holderCount;
    private int[] holderHost;
    private int[] holderSeen;
    /** The holder host's written counter (low 32 bits) when it last used the block. */
    private int[] holderWritten;
    /** The request that last used the block on the holder ({@link #NO_USER} for a peer's): its lease in the script. */
    private int[] holderUser;
    /** The number of the last request routed here; requests are numbered from 1 and the count wraps past 0. */
    private int lastUser;
    /**
     * Requests admitted and not yet released: their blocks are in use on their hosts, which cannot drop them, however
     * much was written there since (the script's lease that still exists).
     */
    private final Set<Integer> usersInFlight = new HashSet<>();
    /**
     * The requests that ended lately, by their number modulo the table's size (numbers are given in turn, so the last
     * {@link #ENDED_USERS} never collide): the number, its host's written counter (low 32 bits) at the end and when it
     * ended (relative seconds). Its blocks were in use until then; the script's ended lease.
     */
    private int[] endedUser;

    private int[] endedWritten;
    private int[] endedAt;
    private final long leaseTtlSeconds;

    private int usedSlots;
    private int liveBlocks;
    private int freeSlot = NONE;
    private int newest = NONE;
    private int oldest = NONE;

    LocalCacheIndex(
            int maxBlocks,
            int maxHolders,
            int maxRequestCount,
            long cleanIntervalSeconds,
            long blockTtlSeconds,
            double inflightTokens,
            double overloadQueueRequests,
            double recentWorkShare,
            double prefillTokensPerSecond,
            long leaseTtlSeconds) {
        if (maxBlocks < 1 || maxHolders < 1 || maxHolders > Byte.MAX_VALUE) {
            throw new IllegalArgumentException("maxBlocks " + maxBlocks + ", maxHolders " + maxHolders);
        }
        this.maxBlocks = maxBlocks;
        this.maxHolders = maxHolders;
        this.maxRequestCount = maxRequestCount;
        this.cleanIntervalSeconds = cleanIntervalSeconds;
        this.blockTtlSeconds = blockTtlSeconds;
        this.inflightTokens = inflightTokens;
        this.overloadQueueRequests = overloadQueueRequests;
        this.recentWorkShare = recentWorkShare;
        this.priorMsPerKilotoken = 1_000_000.0 / prefillTokensPerSecond;
        this.leaseTtlSeconds = leaseTtlSeconds;
        allocateBlocks(Math.min(INITIAL_SLOTS, powerOfTwoAtLeast(maxBlocks)));
    }

    /**
     * Judges evictions with an instance's KV cache of {@code tokens} from the next decision on (0 = none), the size
     * the script gets with each call: the instances' reported size can arrive or change after the index was made.
     * Written counts are kept either way.
     */
    void judgeEvictionsWith(long tokens) {
        kvCacheTokens = tokens;
    }

    /**
     * Expects unstreamed first tokens at {@code tokensPerSecond} from the next decision on, the rate the script gets
     * with each call: learned from the engines' metrics once they report enough first tokens.
     */
    void expectPrefillAt(double tokensPerSecond) {
        priorMsPerKilotoken = 1_000_000.0 / tokensPerSecond;
    }

    /** What the script keeps per route and cluster; here per service, whose hosts hold what it was sent. */
    private static final class Scope {
        /** Mixed into the block keys: the same prompt sent to two services is two blocks, as in Redis. */
        final long salt;

        long routed;
        /** Decayed sums of the prefill work queued per request and of requests: their ratio is the mean work. */
        double workSum;

        double requestSum;
        /** The fit of first-token times, as cache_aware.lua's "f": sums of x x^T (3x3), then of x y. */
        final double[] fit = new double[12];
        /**
         * The busy throughput, as cache_aware.lua's "r": decayed sums over the first tokens that came to a queue
         * draining of their work, of the ms it drained for, and of their number.
         */
        final double[] drainRate = new double[3];
        /** Relative seconds when departed hosts are dropped next; the first decision does it. */
        long nextCleanAt = Long.MIN_VALUE;

        Scope(long salt) {
            this.salt = salt;
        }
    }

    /** A session's last request: its host and prompt tokens, and when it was routed (relative seconds). */
    private static final class Session {
        final String host;
        final long promptTokens;
        final int routedAt;

        Session(String host, long promptTokens, int routedAt) {
            this.host = host;
            this.promptTokens = promptTokens;
            this.routedAt = routedAt;
        }
    }

    /** One decision, as cache_aware.lua's reply: {@code {"ok", host, count, depth, matched, cost, work}} or "full". */
    static final class Choice {
        final boolean full;
        final String host;
        final long count;
        final int depth;
        final long matchedTokens;
        final long cost;
        final long work;
        /**
         * Requests waiting for their first token and prefill tokens queued on the host before this request, less what
         * its instance has prefilled of them since (cache_aware.lua's drained_h).
         */
        final long requestsAhead;

        final long tokensAhead;
        /**
         * For a response that does not stream, when its first token is expected, in ms after the routing, or
         * {@link #FIRST_TOKEN_AT_END}; else 0.
         */
        final long firstTokenInMillis;
        /** The request's number, for {@link #admit} and {@link #release}; {@link #NO_USER} when full. */
        final int user;

        private Choice(
                boolean full,
                String host,
                long count,
                int depth,
                long matchedTokens,
                long cost,
                long work,
                long requestsAhead,
                long tokensAhead,
                long firstTokenInMillis,
                int user) {
            this.full = full;
            this.host = host;
            this.count = count;
            this.depth = depth;
            this.matchedTokens = matchedTokens;
            this.cost = cost;
            this.work = work;
            this.requestsAhead = requestsAhead;
            this.tokensAhead = tokensAhead;
            this.firstTokenInMillis = firstTokenInMillis;
            this.user = user;
        }

        /** The script's reply for the same decision. */
        RespValue asReply() {
            if (full) {
                return RespValue.array(
                        RespValue.bulkString("full"), RespValue.bulkString(host), RespValue.integer(count));
            }
            return RespValue.array(
                    RespValue.bulkString("ok"),
                    RespValue.bulkString(host),
                    RespValue.integer(count),
                    RespValue.integer(depth),
                    RespValue.integer(matchedTokens),
                    RespValue.integer(cost),
                    RespValue.integer(work),
                    RespValue.integer(firstTokenInMillis));
        }
    }

    /**
     * Chooses a host for a request of {@code promptTokens} whose blocks are {@code blockHashes} (32 hex digits each)
     * ending at the cumulative {@code blockTokens}, among {@code healthy} ({@code unhealthy}: known hosts that keep
     * their counts), and records its blocks on it. Its in-flight count and work are added by {@link #admit} when the
     * decision takes effect. {@code healthy} is not empty.
     */
    Choice select(
            String service,
            List<String> blockHashes,
            List<Integer> blockTokens,
            int promptTokens,
            List<String> healthy,
            List<String> unhealthy,
            int randomValue,
            long nowSeconds) {
        return select(
                service,
                blockHashes,
                blockTokens,
                blockTokens,
                promptTokens,
                null,
                healthy,
                unhealthy,
                randomValue,
                nowSeconds * 1000,
                true);
    }

    /**
     * As above, with {@code answeredTokens} per block the tokens a host that served a prompt ending there holds with
     * its answer (cache_aware.lua's answered tokens), for a request of the session whose id hashes to
     * {@code sessionHash} (null: none): the host of the session's last request, if healthy, counts as holding that
     * request's prompt (cache_aware.lua's session key). A request whose response does not {@code stream} gets the
     * time its first token is expected (cache_aware.lua's first_token_in).
     */
    Choice select(
            String service,
            List<String> blockHashes,
            List<Integer> blockTokens,
            List<Integer> answeredTokens,
            int promptTokens,
            String sessionHash,
            List<String> healthy,
            List<String> unhealthy,
            int randomValue,
            long nowMillis,
            boolean streams) {
        long nowSeconds = Math.floorDiv(nowMillis, 1000L);
        startClock(nowSeconds);
        Scope scope = scopeOf(service);
        long routed = scope.routed;
        int now = relative(nowSeconds);
        int prompt = Math.max(0, promptTokens);
        double priorTokensPerSecond = 1_000_000.0 / priorMsPerKilotoken;
        double drainTokensPerSecond = drainTokensPerSecond(scope.drainRate, priorTokensPerSecond);
        // As the script's prefill_bound: queues that drain slower than an instance prefills are held by something
        // else (decode seats, per-request costs), and the time since a first token says little of their progress.
        boolean prefillBound = drainTokensPerSecond >= priorTokensPerSecond;
        mark++;
        int[] hosts = new int[healthy.size()];
        int hostCount = 0;
        for (String name : healthy) {
            int id = internHost(name);
            if (healthyMark[id] != mark) {
                healthyMark[id] = mark;
                knownMark[id] = mark;
                hostScope[id] = scope;
                depthOf[id] = 0;
                long[] peer = peerLoads.isEmpty() ? null : peerLoads.get(name);
                peerInflight[id] = peer == null ? 0 : peer[0];
                peerQueued[id] = peer == null ? 0 : peer[1];
                peerHeld[id] = peer == null ? 0 : peer[4];
                peerWaiting[id] = peer == null ? 0 : peer[5];
                peerRecent[id] = peer == null ? 0 : recentAsOf(peer[2], peer[3], nowSeconds);
                drainedOf[id] = prefillBound ? drained(id, drainTokensPerSecond, nowMillis) : 0;
                hosts[hostCount++] = id;
            }
        }

        int levels = blockHashes.size();
        int walked = 0;
        long deepestUses = 0;
        boolean allHot = true;
        long staleBefore = (long) now - blockTtlSeconds;
        for (int d = 1; d <= levels; d++) {
            String hash = blockHashes.get(d - 1);
            int slot = find(hexHigh(hash) ^ scope.salt, hexLow(hash), now);
            if (slot == NONE) {
                break;
            }
            pruneStale(slot, staleBefore, now);
            int holders = holderCount[slot];
            for (int i = 0; i < holders; i++) {
                int id = holderHost[slot * maxHolders + i];
                if (healthyMark[id] == mark) {
                    depthOf[id] = d;
                }
            }
            if (holders == 0) {
                break;
            }
            walked = d;
            deepestUses = uses[slot];
            long seen = Math.min(firstSeen[slot], routed);
            allHot = allHot
                    && (double) uses[slot] * hostCount > HOT_SHARE * holders * (double) (routed - seen + hostCount);
        }
        String sessionKey = sessionHash == null ? null : service + "\n" + sessionHash;
        int sessionHost = NONE;
        long sessionTokens = 0;
        Session last = sessionKey == null ? null : sessions.get(sessionKey);
        if (last != null && (long) last.routedAt > staleBefore) {
            Integer id = hostIds.get(last.host);
            if (id != null && healthyMark[id] == mark) {
                sessionHost = id;
                sessionTokens = Math.min(last.promptTokens, prompt);
            }
        }
        for (int i = 0; i < hostCount; i++) {
            matchedOf[hosts[i]] = matchedOn(hosts[i], blockTokens, answeredTokens, prompt, sessionHost, sessionTokens);
        }
        long hotTokens = allHot ? matchedTokens(blockTokens, walked, prompt) : 0;
        // As the script: only a request starting a conversation of its own is charged the hosts' recent work, so only
        // then is each host's computed.
        double recentWeight = walked == 0 && sessionHost == NONE ? recentWorkShare : 0;

        long leastCount = -1;
        int[] leastCounted = new int[hostCount];
        int leastCountedSize = 0;
        double queuedSum = 0;
        double queuedMax = 0;
        long waitingSum = 0;
        long waitingMax = 0;
        double recentSum = 0;
        // For the conversation-start lead: the counts in flight summed, and the least count and the least queue among
        // the deepest holders.
        long inflightSum = 0;
        long holderLeast = -1;
        double holderLeastQueued = -1;
        for (int i = 0; i < hostCount; i++) {
            int id = hosts[i];
            inflightSum += inflightTotal(id);
            if (walked > 0 && depthOf[id] == walked) {
                if (holderLeast < 0 || inflightTotal(id) < holderLeast) {
                    holderLeast = inflightTotal(id);
                }
                if (holderLeastQueued < 0 || queuedTotal(id) < holderLeastQueued) {
                    holderLeastQueued = queuedTotal(id);
                }
            }
            queuedSum = queuedSum + queuedTotal(id);
            waitingSum += waitingTotal(id);
            waitingMax = Math.max(waitingMax, waitingTotal(id));
            queuedMax = Math.max(queuedMax, queuedTotal(id));
            if (recentWeight > 0) {
                recentNowOf[id] = ownRecent(id, now) + peerRecent[id];
                recentSum = recentSum + recentNowOf[id];
            }
            if (leastCount < 0 || inflightTotal(id) < leastCount) {
                leastCount = inflightTotal(id);
                leastCountedSize = 0;
                leastCounted[leastCountedSize++] = id;
            } else if (inflightTotal(id) == leastCount) {
                leastCounted[leastCountedSize++] = id;
            }
        }
        double weight = 1;
        double queuedRequests = 0;
        double typicalQueue = 0;
        double meanWork = Math.max(1, scope.requestSum > 0 ? scope.workSum / scope.requestSum : prompt);
        if (hostCount > 0) {
            // As the script: the mean queue over the hosts but the longest, so that one host falling behind does not
            // make copies of its prefixes dearer.
            typicalQueue = hostCount > 1 ? (queuedSum - queuedMax) / (hostCount - 1) : queuedSum;
            queuedRequests = typicalQueue / meanWork;
            weight = weightOf(queuedRequests, prefillBound);
        }

        // As the script: waiting requests cost only while the typical host has fewer than two.
        double typicalWaiting =
                hostCount > 1 ? (double) (waitingSum - waitingMax) / (hostCount - 1) : (double) waitingSum;
        double perRequest = typicalWaiting < PER_REQUEST_MAX_WAITING ? perRequestTokens(scope.fit) : 0;
        double recentMean = hostCount > 0 ? recentSum / hostCount : 0;
        double roomWeight = Math.min(weight, MAX_ROOM_WEIGHT);
        double inflightWeight = inflightTokens;
        // As the script: holders behind, not just busy, let each host's uncached tokens weigh by its own queue.
        boolean ownQueueWeight = false;
        if (queuedRequests >= START_MIN_QUEUE
                && startsOnBusySharedPrefix(
                        walked, levels, deepestUses, sessionHost, holderLeast, inflightSum, hostCount)) {
            inflightWeight = START_INFLIGHT_FACTOR * inflightTokens;
            ownQueueWeight = queuedRequests >= BEHIND_MIN_QUEUE && holderLeastQueued > typicalQueue;
        }

        // As the script: a turn of a conversation of its own pays for each token of its history a host lacks, while
        // the fleet is busy but not behind, at most the prefill its best holder has queued beyond the host's.
        long holderMatched = 0;
        double holderQueue = 0;
        if (deepestUses <= 1
                && hostCount > 0
                && inflightSum >= HOLDER_MIN_INFLIGHT * hostCount
                && queuedRequests < HOLDER_MAX_QUEUE) {
            for (int i = 0; i < hostCount; i++) {
                if (matchedOf[hosts[i]] > holderMatched) {
                    holderMatched = matchedOf[hosts[i]];
                    holderQueue = pendingTotal(hosts[i]);
                }
            }
            if (blockTokens.isEmpty() || holderMatched <= matchedTokens(blockTokens, 1, prompt)) {
                holderMatched = 0;
            }
        }

        double bestCost = 0;
        int[] ties = new int[hostCount];
        int tieCount = 0;
        boolean someRoom = false;
        if (kvCacheTokens > 0) {
            for (int i = 0; i < hostCount && !someRoom; i++) {
                int id = hosts[i];
                if (maxRequestCount <= 0 || inflightTotal(id) < maxRequestCount) {
                    someRoom = roomShort(id, prompt, matchedOf[id]) == 0;
                }
            }
        }
        for (int i = 0; i < hostCount; i++) {
            int id = hosts[i];
            if (maxRequestCount > 0 && inflightTotal(id) >= maxRequestCount) {
                continue;
            }
            long matched = matchedOf[id];
            double pending = pendingTotal(id);
            double hot = Math.max(0, hotTokens - matched);
            double hostWeight =
                    ownQueueWeight ? Math.min(weight, weightOf(queuedTotal(id) / meanWork, prefillBound)) : weight;
            double cost = pending
                    + perRequest * waitingTotal(id)
                    + hostWeight * (prompt - matched)
                    - hot
                    + inflightWeight * inflightTotal(id)
                    + recentWeight * (recentNowOf[id] - recentMean);
            if (someRoom) {
                cost = cost + roomWeight * roomShort(id, prompt, matched);
            }
            if (holderMatched > matched) {
                cost = cost
                        + Math.min(
                                HOLDER_PRICE * weight * (holderMatched - matched), Math.max(0, holderQueue - pending));
            }
            if (tieCount == 0 || cost < bestCost - TIE) {
                bestCost = cost;
                tieCount = 0;
                ties[tieCount++] = id;
            } else if (cost <= bestCost + TIE) {
                ties[tieCount++] = id;
            }
        }
        if (tieCount == 0) {
            int least = leastCounted[randomValue % leastCountedSize];
            return new Choice(true, hostNames[least], leastCount, 0, 0, 0, 0, 0, 0, 0, NO_USER);
        }

        int target = ties[randomValue % tieCount];
        int depth = depthOf[target];
        long matched = matchedOf[target];
        long work = Math.max(0, prompt - matched);
        written[target] += work;
        if (recentWorkShare > 0) {
            // Only this VM's own: the peers publish theirs.
            recentWork[target] = (long) Math.floor(ownRecent(target, now) + work + 0.5);
            recentAt[target] = now;
        }
        lastUser = lastUser == Integer.MAX_VALUE ? 1 : lastUser + 1;
        for (int d = 1; d <= levels; d++) {
            String hash = blockHashes.get(d - 1);
            recordHolder(findOrAdd(hexHigh(hash) ^ scope.salt, hexLow(hash), routed, now), target, now, lastUser);
        }
        if (sessionKey != null) {
            rememberSession(sessionKey, new Session(hostNames[target], prompt, now));
        }
        scope.routed = routed + 1;
        scope.workSum = scope.workSum * DECAY + work;
        scope.requestSum = scope.requestSum * DECAY + 1;
        for (String name : unhealthy) {
            Integer id = hostIds.get(name);
            if (id != null) {
                knownMark[id] = mark;
            }
        }
        if (now >= scope.nextCleanAt) {
            dropDepartedHosts(scope);
            scope.nextCleanAt = (long) now + cleanIntervalSeconds;
        }
        return new Choice(
                false,
                hostNames[target],
                inflightTotal(target) + 1,
                depth,
                matched,
                (long) Math.floor(bestCost + 0.5),
                work,
                waitingTotal(target),
                pendingTotal(target),
                streams
                        ? 0
                        : firstTokenInMillis(
                                scope.fit,
                                priorMsPerKilotoken,
                                waitingTotal(target),
                                pendingTotal(target) + work,
                                queuedRequests >= UNTIL_END_QUEUE),
                lastUser);
    }

    /** This VM's count on host {@code id} plus the other VMs' (set for the hosts of the current decision). */
    private long inflightTotal(int id) {
        return inflight[id] + peerInflight[id];
    }

    private long queuedTotal(int id) {
        return queued[id] + peerQueued[id];
    }

    /** What is still to prefill on host {@code id}: its queue less what it drained by now (the script's pending_h). */
    private long pendingTotal(int id) {
        return queuedTotal(id) - drainedOf[id];
    }

    /**
     * cache_aware.lua's drain_tokens_per_second: the busy throughput {@code rate} ({@link Scope#drainRate}) has
     * learned once {@link #MIN_TIMED} first tokens (decayed) came to draining queues; until then the prefill rate the
     * policy assumes.
     */
    private static double drainTokensPerSecond(double[] rate, double priorTokensPerSecond) {
        if (rate[2] >= MIN_TIMED && rate[1] > 0) {
            return 1000 * rate[0] / rate[1];
        }
        return priorTokensPerSecond;
    }

    /**
     * The tokens of host {@code id}'s own queue the instance has prefilled by {@code nowMillis} (cache_aware.lua's
     * drained_h): since its queue began draining, at {@code tokensPerSecond}, at most the queue.
     */
    private long drained(int id, double tokensPerSecond, long nowMillis) {
        if (queued[id] == 0 || drainingSince[id] == NOT_DRAINING) {
            return 0;
        }
        return Math.min(
                queued[id], (long) Math.floor(tokensPerSecond * Math.max(0, nowMillis - drainingSince[id]) / 1000));
    }

    private long waitingTotal(int id) {
        return waiting[id] + peerWaiting[id];
    }

    /** Tokens of a {@code prompt} with {@code matched} cached on host {@code id} that do not fit next to its held KV. */
    private long roomShort(int id, int prompt, long matched) {
        return Math.max(0, held[id] + peerHeld[id] + prompt - matched - kvCacheTokens);
    }

    /** This VM's recent work on host {@code id} as of {@code now} (seconds since the epoch of this index). */
    private double ownRecent(int id, int now) {
        return recentAsOf(recentWork[id], recentAt[id], now);
    }

    /** Recent work of {@code tokens} as of {@code atSeconds}, faded to {@code nowSeconds} (both Unix seconds). */
    static double recentAsOf(long tokens, long atSeconds, long nowSeconds) {
        return tokens * Math.exp(-Math.max(0, nowSeconds - atSeconds) / RECENT_SECONDS);
    }

    private void startClock(long nowSeconds) {
        if (!epochSet) {
            epoch = nowSeconds;
            epochSet = true;
        }
    }

    /**
     * Another VM of the gateway routed a request with the block {@code high}/{@code low} (its hash's two words) of
     * {@code service} to {@code host}: the host holds it here too, as if routed here, without any count or queued
     * work. {@code endsRequest} marks a request's last block: the request counts in the service's routed total, as
     * every gateway's requests do in Redis. A block older than its TTL is ignored.
     */
    void importBlock(
            String service,
            long high,
            long low,
            String host,
            long routedAtSeconds,
            boolean endsRequest,
            long nowSeconds) {
        startClock(nowSeconds);
        if (routedAtSeconds + blockTtlSeconds <= nowSeconds) {
            return;
        }
        Scope scope = scopeOf(service);
        int now = relative(nowSeconds);
        int id = internHost(host);
        if (hostScope[id] == null) {
            // So that it is dropped like the service's other hosts once it left and no block lists it.
            hostScope[id] = scope;
        }
        recordHolder(findOrAdd(high ^ scope.salt, low, scope.routed, now), id, now, NO_USER);
        if (endsRequest) {
            scope.routed++;
        }
    }

    /**
     * Another VM routed a request of the session hashed {@code sessionHash} with {@code promptTokens} to {@code host}
     * at {@code routedAtSeconds}: remembered as if routed here, unless this VM routed the session since.
     */
    void importSession(String service, String sessionHash, String host, long promptTokens, long routedAtSeconds) {
        startClock(routedAtSeconds);
        String key = service + "\n" + sessionHash;
        int routedAt = relative(routedAtSeconds);
        Session known = sessions.get(key);
        if (known == null || known.routedAt <= routedAt) {
            rememberSession(key, new Session(host, Math.max(0, promptTokens), routedAt));
        }
    }

    /**
     * The other VMs' in-flight counts, queued tokens and recent work per host ({in flight, queued, recent work, the
     * Unix second it is as of}), replacing the last ones.
     */
    void peerLoads(Map<String, long[]> loads) {
        this.peerLoads = loads;
    }

    /**
     * This VM's own counts, host → {in flight, queued tokens, recent work, the Unix second it is as of, held KV
     * tokens, requests waiting for their first token}, for the hosts where one is positive at {@code nowSeconds} (at
     * most {@code limit}): what it publishes to the other VMs.
     * Recent work faded below half a token is left out, so an idle VM's publication stops changing.
     */
    Map<String, long[]> ownLoads(int limit, long nowSeconds) {
        Map<String, long[]> loads = new LinkedHashMap<>();
        int now = relative(nowSeconds);
        for (int id = 0; id < hostSlots && loads.size() < limit; id++) {
            if (hostNames[id] == null) {
                continue;
            }
            boolean recent = epochSet && ownRecent(id, now) >= 0.5;
            if (inflight[id] > 0 || queued[id] > 0 || recent) {
                loads.put(hostNames[id], new long[] {
                    inflight[id],
                    queued[id],
                    recent ? recentWork[id] : 0,
                    recent ? epoch + recentAt[id] : 0,
                    held[id],
                    waiting[id]
                });
            }
        }
        return loads;
    }

    /**
     * The request routed at {@code routedAtMillis} took effect on {@code host}: count it in flight and waiting, and
     * queue its {@code work}; an empty queue begins draining with it. Until its release the blocks it last used on
     * the host, those of {@code user} (its choice's), are not judged evicted.
     */
    void admit(String host, long work, long routedAtMillis, int user) {
        Integer id = hostIds.get(host);
        if (id != null) {
            if (user != NO_USER) {
                usersInFlight.add(user);
            }
            if (queued[id] == 0) {
                drainingSince[id] = routedAtMillis;
            }
            inflight[id]++;
            queued[id] += work;
            held[id] += work;
            waiting[id]++;
        }
    }

    /**
     * A request of {@code service} had its first token at {@code atMillis}: its {@code work} leaves the host's queue,
     * it no longer waits, and the queue drains from then on. One the gateway {@code saw} (not one only taken as come
     * when due) that came to a draining queue teaches the busy throughput: its work came out in the time since the
     * queue began draining (cache_aware_first_token.lua's "r", term for term).
     */
    void firstToken(String service, String host, long work, long atMillis, boolean saw) {
        Integer id = hostIds.get(host);
        if (id != null) {
            Scope scope = scopes.get(service);
            if (saw && scope != null && queued[id] > 0 && drainingSince[id] != NOT_DRAINING) {
                double[] rate = scope.drainRate;
                rate[0] = rate[0] * FIT_DECAY + work;
                rate[1] = rate[1] * FIT_DECAY + Math.max(0, atMillis - drainingSince[id]);
                rate[2] = rate[2] * FIT_DECAY + 1;
            }
            drainingSince[id] = Math.max(drainingSince[id], atMillis);
            queued[id] = Math.max(0, queued[id] - work);
            waiting[id] = Math.max(0, waiting[id] - 1);
        }
    }

    /**
     * A streamed request of {@code service} had its first token {@code millis} after it was routed, with
     * {@code requestsAhead} requests waiting and {@code tokens} prefill tokens queued on its host, its own included:
     * the fit of first-token times learns from it (cache_aware_first_token.lua's fit, term for term).
     */
    void timeFirstToken(String service, long requestsAhead, long tokens, long millis) {
        Scope scope = scopes.get(service);
        if (scope == null) {
            return;
        }
        double[] x = {1, requestsAhead, tokens / 1000.0};
        double[] fit = scope.fit;
        double ms = Math.max(0, millis);
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                fit[3 * i + j] = fit[3 * i + j] * FIT_DECAY + x[i] * x[j];
            }
            fit[9 + i] = fit[9 + i] * FIT_DECAY + x[i] * ms;
        }
    }

    /**
     * cache_aware.lua's solve_fit: the fit's coefficients {ms fixed, ms per request ahead, ms per kilotoken} from its
     * normal equations by Cramer's rule; null before {@link #MIN_TIMED} timed requests or when they do not determine
     * them.
     */
    private static double[] solveFit(double[] fit) {
        if (fit[0] < MIN_TIMED) {
            return null;
        }
        double[] m = fit;
        double y1 = fit[9];
        double y2 = fit[10];
        double y3 = fit[11];
        double det = m[0] * (m[4] * m[8] - m[5] * m[7])
                - m[1] * (m[3] * m[8] - m[5] * m[6])
                + m[2] * (m[3] * m[7] - m[4] * m[6]);
        if (Math.abs(det) < 1e-9) {
            return null;
        }
        double msFixed =
                (y1 * (m[4] * m[8] - m[5] * m[7]) - m[1] * (y2 * m[8] - m[5] * y3) + m[2] * (y2 * m[7] - m[4] * y3))
                        / det;
        double msPerRequest =
                (m[0] * (y2 * m[8] - m[5] * y3) - y1 * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * y3 - y2 * m[6]))
                        / det;
        double msPerKilotoken =
                (m[0] * (m[4] * y3 - y2 * m[7]) - m[1] * (m[3] * y3 - y2 * m[6]) + y1 * (m[3] * m[7] - m[4] * m[6]))
                        / det;
        return new double[] {msFixed, msPerRequest, msPerKilotoken};
    }

    /**
     * cache_aware.lua's per_request: what one request waiting ahead adds to a first-token time, in prompt tokens;
     * 0 before {@link #MIN_TIMED} timed requests or without such a cost.
     */
    static double perRequestTokens(double[] fit) {
        double[] solved = solveFit(fit);
        if (solved == null || solved[1] <= 0 || solved[2] <= 0) {
            return 0;
        }
        return Math.min(MAX_PER_REQUEST_TOKENS, 1000 * solved[1] / solved[2]);
    }

    /**
     * cache_aware.lua's first_token_in: when, in ms after its routing, the first token of a request with
     * {@code requestsAhead} requests waiting and {@code tokens} prefill tokens queued on its host (its own included)
     * should come back; for a request whose response does not stream, whose first token the gateway never sees. The
     * fit's prediction once it has a positive cost per token; while no streamed request has been timed, {@link
     * #FIRST_TOKEN_AT_END} when {@code overloaded}; else the tokens at {@code priorMsPerKilotoken} (the prefill rate
     * the policy sets). At most {@link #MAX_FIRST_TOKEN_MS}.
     */
    static long firstTokenInMillis(
            double[] fit, double priorMsPerKilotoken, long requestsAhead, long tokens, boolean overloaded) {
        double kilotokens = tokens / 1000.0;
        double[] solved = solveFit(fit);
        double predicted;
        if (solved != null && solved[2] > 0) {
            predicted = solved[0] + Math.max(0, solved[1]) * requestsAhead + solved[2] * kilotokens;
        } else if (overloaded && fit[0] == 0) {
            return FIRST_TOKEN_AT_END;
        } else {
            predicted = priorMsPerKilotoken * kilotokens;
        }
        return (long) Math.floor(Math.min(MAX_FIRST_TOKEN_MS, Math.max(0, predicted)));
    }

    /**
     * A routed request whose response does not stream counts as having had its first token once {@code dueAtMillis}
     * (the gateway's clock) has passed: {@link #settleUnseenFirstTokens} then runs {@code onDue}, which takes its work
     * off the queue and its place among the waiting, as the script does with its due leases.
     */
    void expectUnseenFirstToken(long dueAtMillis, Runnable onDue) {
        if (unseenFirstTokens.size() >= MAX_UNSEEN_FIRST_TOKENS) {
            // Bounded memory whatever the traffic: the earliest expected counts as come now.
            unseenFirstTokens.poll().onDue.run();
        }
        unseenFirstTokens.add(new UnseenFirstToken(dueAtMillis, onDue));
    }

    /** Runs what is due at {@code nowMillis} (see {@link #expectUnseenFirstToken}); the script does so at every call. */
    void settleUnseenFirstTokens(long nowMillis) {
        while (!unseenFirstTokens.isEmpty() && unseenFirstTokens.peek().dueAtMillis <= nowMillis) {
            unseenFirstTokens.poll().onDue.run();
        }
    }

    private static final class UnseenFirstToken {
        final long dueAtMillis;
        final Runnable onDue;

        UnseenFirstToken(long dueAtMillis, Runnable onDue) {
            this.dueAtMillis = dueAtMillis;
            this.onDue = onDue;
        }
    }

    /**
     * A request ended: its count, the {@code work} it still has queued and the {@code heldWork} it was admitted with
     * are given back, and its place among the waiting when it is still {@code waiting} for its first token; the
     * blocks {@code user} last used can be judged evicted again.
     */
    void release(String host, long work, long heldWork, boolean waiting, int user, long nowSeconds) {
        usersInFlight.remove(user);
        Integer id = hostIds.get(host);
        if (id != null && user != NO_USER && kvCacheTokens > 0) {
            if (endedUser == null) {
                endedUser = new int[ENDED_USERS];
                endedWritten = new int[ENDED_USERS];
                endedAt = new int[ENDED_USERS];
            }
            startClock(nowSeconds);
            int slot = user & (ENDED_USERS - 1);
            endedUser[slot] = user;
            endedWritten[slot] = (int) written[id];
            endedAt[slot] = relative(nowSeconds);
        }
        if (id != null) {
            if (waiting) {
                this.waiting[id] = Math.max(0, this.waiting[id] - 1);
            }
            inflight[id] = Math.max(0, inflight[id] - 1);
            queued[id] = Math.max(0, queued[id] - work);
            held[id] = Math.max(0, held[id] - heldWork);
        }
    }

    /** Blocks held now. */
    int blocks() {
        return liveBlocks;
    }

    /** Requests {@code host} has in flight here. */
    long inflightOf(String host) {
        Integer id = hostIds.get(host);
        return id == null ? 0 : inflight[id];
    }

    /** Requests on {@code host} here whose first token has not come back. */
    long waitingOf(String host) {
        Integer id = hostIds.get(host);
        return id == null ? 0 : waiting[id];
    }

    /** What one request waiting ahead costs in {@code service}'s decisions now, in prompt tokens (0 = not learned). */
    double perRequestTokens(String service) {
        Scope scope = scopes.get(service);
        return scope == null ? 0 : perRequestTokens(scope.fit);
    }

    /** Prefill tokens queued on {@code host} here. */
    long queuedOf(String host) {
        Integer id = hostIds.get(host);
        return id == null ? 0 : queued[id];
    }

    /**
     * The script's weight_of: the weight of an uncached token for a queue of {@code queuedRequests} requests, its
     * growth past linear doubled while queues drain at an instance's prefill rate ({@code prefillBound}).
     */
    private double weightOf(double queuedRequests, boolean prefillBound) {
        double w = 1 + queuedRequests;
        if (overloadQueueRequests > 0) {
            double growth = prefillBound ? PREFILL_BOUND_GROWTH : 1;
            w = w + growth * (queuedRequests * queuedRequests / overloadQueueRequests);
        }
        return Math.min(w, MAX_WEIGHT);
    }

    /** Hosts with an id: the service's hosts and those some block still lists. */
    int hostsTracked() {
        return hostIds.size();
    }

    /**
     * As the script: the request starts a conversation (no session host, blocks of its own after the prefix it shares
     * with other requests; a prompt at the parser's block cap that walks to the block before its folded last one
     * continues a long prefix instead) and even the least busy holder of that prefix has more than BUSY_HOLDER_MARGIN
     * times the mean count in flight.
     */
    private static boolean startsOnBusySharedPrefix(
            int walked,
            int levels,
            long deepestUses,
            int sessionHost,
            long holderLeast,
            long inflightSum,
            int hostCount) {
        return walked < levels
                && !(levels == RequestParser.MAX_PREFIX_BLOCKS && walked == levels - 1)
                && deepestUses > 1
                && sessionHost == NONE
                && holderLeast >= 0
                && holderLeast > BUSY_HOLDER_MARGIN * inflightSum / hostCount;
    }

    /** Prompt tokens host {@code id} holds: by its deepest block, or by the session when it served the last one. */
    private long matchedOn(
            int id,
            List<Integer> blockTokens,
            List<Integer> answeredTokens,
            int prompt,
            int sessionHost,
            long sessionTokens) {
        // The prefix down to the host's deepest block, and the answer it gave to it if the request goes on with one.
        long matched = Math.max(
                matchedTokens(blockTokens, depthOf[id], prompt), matchedTokens(answeredTokens, depthOf[id], prompt));
        return id == sessionHost ? Math.max(matched, sessionTokens) : matched;
    }

    private void rememberSession(String key, Session session) {
        // Removed first, so the session moves to the newest end of the routing order.
        sessions.remove(key);
        sessions.put(key, session);
        if (sessions.size() > MAX_SESSIONS) {
            Iterator<String> oldest = sessions.keySet().iterator();
            oldest.next();
            oldest.remove();
        }
    }

    /** Sessions remembered now. */
    int sessions() {
        return sessions.size();
    }

    private static long matchedTokens(List<Integer> blockTokens, int depth, int prompt) {
        if (depth == 0) {
            return 0;
        }
        return Math.min(Math.max(0, blockTokens.get(depth - 1)), prompt);
    }

    private Scope scopeOf(String service) {
        Scope scope = scopes.get(service);
        if (scope == null) {
            scope = new Scope(saltOf(service));
            scopes.put(service, scope);
        }
        return scope;
    }

    /** FNV-1a over the name's chars, finished by SplitMix64's mixer. */
    private static long saltOf(String service) {
        long h = 0xCBF29CE484222325L;
        for (int i = 0; i < service.length(); i++) {
            h = (h ^ service.charAt(i)) * 0x100000001B3L;
        }
        h = (h ^ (h >>> 30)) * 0xBF58476D1CE4E5B9L;
        h = (h ^ (h >>> 27)) * 0x94D049BB133111EBL;
        return h ^ (h >>> 31);
    }

    private int relative(long nowSeconds) {
        long offset = nowSeconds - epoch;
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, offset));
    }

    // ---- hosts

    private int internHost(String name) {
        Integer known = hostIds.get(name);
        if (known != null) {
            return known;
        }
        int id;
        if (freeHosts > 0) {
            id = freeHostIds[--freeHosts];
        } else {
            if (hostSlots == hostNames.length) {
                growHosts(hostSlots * 2);
            }
            id = hostSlots++;
        }
        hostNames[id] = name;
        inflight[id] = 0;
        queued[id] = 0;
        drainingSince[id] = NOT_DRAINING;
        waiting[id] = 0;
        held[id] = 0;
        written[id] = 0;
        recentWork[id] = 0;
        holderRefs[id] = 0;
        healthyMark[id] = 0;
        knownMark[id] = 0;
        hostIds.put(name, id);
        return id;
    }

    private static long[] newDrainingSince(int size) {
        long[] since = new long[size];
        Arrays.fill(since, NOT_DRAINING);
        return since;
    }

    private void growHosts(int size) {
        hostNames = Arrays.copyOf(hostNames, size);
        hostScope = Arrays.copyOf(hostScope, size);
        inflight = Arrays.copyOf(inflight, size);
        queued = Arrays.copyOf(queued, size);
        long[] grownSince = newDrainingSince(size);
        System.arraycopy(drainingSince, 0, grownSince, 0, drainingSince.length);
        drainingSince = grownSince;
        drainedOf = Arrays.copyOf(drainedOf, size);
        waiting = Arrays.copyOf(waiting, size);
        held = Arrays.copyOf(held, size);
        written = Arrays.copyOf(written, size);
        recentWork = Arrays.copyOf(recentWork, size);
        recentAt = Arrays.copyOf(recentAt, size);
        recentNowOf = Arrays.copyOf(recentNowOf, size);
        holderRefs = Arrays.copyOf(holderRefs, size);
        healthyMark = Arrays.copyOf(healthyMark, size);
        knownMark = Arrays.copyOf(knownMark, size);
        depthOf = Arrays.copyOf(depthOf, size);
        matchedOf = Arrays.copyOf(matchedOf, size);
        peerInflight = Arrays.copyOf(peerInflight, size);
        peerQueued = Arrays.copyOf(peerQueued, size);
        peerHeld = Arrays.copyOf(peerHeld, size);
        peerWaiting = Arrays.copyOf(peerWaiting, size);
        freeHostIds = Arrays.copyOf(freeHostIds, size);
    }

    /**
     * Hosts that left the service lose their counts (their requests' later releases find nothing, as in Redis after
     * the script's cleanup); their id is reused once no block lists them.
     */
    private void dropDepartedHosts(Scope scope) {
        for (int id = 0; id < hostSlots; id++) {
            if (hostNames[id] == null || hostScope[id] != scope || knownMark[id] == mark) {
                continue;
            }
            inflight[id] = 0;
            queued[id] = 0;
            drainingSince[id] = NOT_DRAINING;
            waiting[id] = 0;
            held[id] = 0;
            written[id] = 0;
            recentWork[id] = 0;
            if (holderRefs[id] == 0) {
                hostIds.remove(hostNames[id]);
                hostNames[id] = null;
                hostScope[id] = null;
                freeHostIds[freeHosts++] = id;
            }
        }
    }

    // ---- blocks

    private void allocateBlocks(int slots) {
        capacity = slots;
        buckets = new int[slots];
        Arrays.fill(buckets, NONE);
        hashHigh = new long[slots];
        hashLow = new long[slots];
        chainNext = new int[slots];
        newer = new int[slots];
        older = new int[slots];
        uses = new long[slots];
        firstSeen = new long[slots];
        lastWritten = new int[slots];
        holderCount = new byte[slots];
        holderHost = new int[slots * maxHolders];
        holderSeen = new int[slots * maxHolders];
        holderWritten = new int[slots * maxHolders];
        holderUser = new int[slots * maxHolders];
    }

    /** Doubles the slot arrays (never past maxBlocks' power of two); the live blocks keep their slots. */
    private void growBlocks() {
        int slots = capacity * 2;
        hashHigh = Arrays.copyOf(hashHigh, slots);
        hashLow = Arrays.copyOf(hashLow, slots);
        chainNext = Arrays.copyOf(chainNext, slots);
        newer = Arrays.copyOf(newer, slots);
        older = Arrays.copyOf(older, slots);
        uses = Arrays.copyOf(uses, slots);
        firstSeen = Arrays.copyOf(firstSeen, slots);
        lastWritten = Arrays.copyOf(lastWritten, slots);
        holderCount = Arrays.copyOf(holderCount, slots);
        holderHost = Arrays.copyOf(holderHost, slots * maxHolders);
        holderSeen = Arrays.copyOf(holderSeen, slots * maxHolders);
        holderWritten = Arrays.copyOf(holderWritten, slots * maxHolders);
        holderUser = Arrays.copyOf(holderUser, slots * maxHolders);
        capacity = slots;
        buckets = new int[slots];
        Arrays.fill(buckets, NONE);
        for (int slot = 0; slot < usedSlots; slot++) {
            if (holderCount[slot] >= 0) {
                int bucket = bucketOf(hashHigh[slot], hashLow[slot]);
                chainNext[slot] = buckets[bucket];
                buckets[bucket] = slot;
            }
        }
    }

    private int bucketOf(long high, long low) {
        long mixed = high ^ (low * 0x9E3779B97F4A7C15L);
        return (int) (mixed ^ (mixed >>> 32)) & (capacity - 1);
    }

    /** The live block with this hash, or NONE; a block past its TTL is removed (its Redis key would have expired). */
    private int find(long high, long low, int now) {
        for (int slot = buckets[bucketOf(high, low)]; slot != NONE; slot = chainNext[slot]) {
            if (hashHigh[slot] == high && hashLow[slot] == low) {
                if ((long) lastWritten[slot] + blockTtlSeconds <= now) {
                    remove(slot);
                    return NONE;
                }
                return slot;
            }
        }
        return NONE;
    }

    private int findOrAdd(long high, long low, long routed, int now) {
        int slot = find(high, low, now);
        if (slot != NONE) {
            return slot;
        }
        if (liveBlocks == maxBlocks) {
            remove(oldest);
        }
        if (freeSlot != NONE) {
            slot = freeSlot;
            freeSlot = chainNext[slot];
        } else {
            if (usedSlots == capacity) {
                growBlocks();
            }
            slot = usedSlots++;
        }
        hashHigh[slot] = high;
        hashLow[slot] = low;
        uses[slot] = 0;
        firstSeen[slot] = routed;
        holderCount[slot] = 0;
        int bucket = bucketOf(high, low);
        chainNext[slot] = buckets[bucket];
        buckets[bucket] = slot;
        linkAsNewest(slot);
        liveBlocks++;
        return slot;
    }

    private void remove(int slot) {
        int base = slot * maxHolders;
        for (int i = 0; i < holderCount[slot]; i++) {
            holderRefs[holderHost[base + i]]--;
        }
        int bucket = bucketOf(hashHigh[slot], hashLow[slot]);
        if (buckets[bucket] == slot) {
            buckets[bucket] = chainNext[slot];
        } else {
            int previous = buckets[bucket];
            while (chainNext[previous] != slot) {
                previous = chainNext[previous];
            }
            chainNext[previous] = chainNext[slot];
        }
        unlink(slot);
        holderCount[slot] = -1;
        chainNext[slot] = freeSlot;
        freeSlot = slot;
        liveBlocks--;
    }

    private void unlink(int slot) {
        if (newer[slot] != NONE) {
            older[newer[slot]] = older[slot];
        } else {
            newest = older[slot];
        }
        if (older[slot] != NONE) {
            newer[older[slot]] = newer[slot];
        } else {
            oldest = newer[slot];
        }
    }

    private void moveToNewest(int slot) {
        if (newest == slot) {
            return;
        }
        unlink(slot);
        linkAsNewest(slot);
    }

    /** Puts an unlinked slot at the newest end of the routing order. */
    private void linkAsNewest(int slot) {
        newer[slot] = NONE;
        older[slot] = newest;
        if (newest != NONE) {
            newer[newest] = slot;
        }
        newest = slot;
        if (oldest == NONE) {
            oldest = slot;
        }
    }

    /** Drops the holders not seen since {@code staleBefore} (relative seconds), as the script's walk does. */
    private void pruneStale(int slot, long staleBefore, int now) {
        int base = slot * maxHolders;
        int kept = 0;
        for (int i = 0; i < holderCount[slot]; i++) {
            int host = holderHost[base + i];
            int seen = holderSeen[base + i];
            int at = holderWritten[base + i];
            int user = holderUser[base + i];
            boolean evicted = kvCacheTokens > 0
                    && (long) ((int) written[host] - at) > kvCacheTokens
                    && !usersInFlight.contains(user)
                    && writtenSinceEnd(user, host, now) > kvCacheTokens - held[host] - peerHeld[host];
            if (seen < staleBefore || evicted) {
                holderRefs[host]--;
            } else {
                holderHost[base + kept] = host;
                holderSeen[base + kept] = seen;
                holderWritten[base + kept] = at;
                holderUser[base + kept] = user;
                kept++;
            }
        }
        holderCount[slot] = (byte) kept;
    }

    /**
     * {@code host} now holds the block: its last use is {@code now}, the block's use count grows, and past
     * maxHolders the least recently seen other holder (by name among equals, as the script sorts) is dropped.
     */
    /**
     * Tokens written to {@code host} since {@code user} ended there, if it ended less than the lease TTL ago and is
     * still remembered; else more than any KV cache (the holder is judged by its use alone). They evict its blocks once
     * they exceed the room the requests running there leave, as the script's evicted.
     */
    private long writtenSinceEnd(int user, int host, int now) {
        int slot = user & (ENDED_USERS - 1);
        if (user == NO_USER || endedUser == null || endedUser[slot] != user || endedAt[slot] + leaseTtlSeconds < now) {
            return Long.MAX_VALUE;
        }
        return (int) written[host] - endedWritten[slot];
    }

    private void recordHolder(int slot, int host, int now, int user) {
        int base = slot * maxHolders;
        int count = holderCount[slot];
        uses[slot]++;
        lastWritten[slot] = now;
        moveToNewest(slot);
        for (int i = 0; i < count; i++) {
            if (holderHost[base + i] == host) {
                holderSeen[base + i] = now;
                holderWritten[base + i] = (int) written[host];
                holderUser[base + i] = user;
                return;
            }
        }
        holderRefs[host]++;
        if (count < maxHolders) {
            holderHost[base + count] = host;
            holderSeen[base + count] = now;
            holderWritten[base + count] = (int) written[host];
            holderUser[base + count] = user;
            holderCount[slot] = (byte) (count + 1);
            return;
        }
        int victim = 0;
        for (int i = 1; i < count; i++) {
            int seen = holderSeen[base + i];
            int victimSeen = holderSeen[base + victim];
            if (seen < victimSeen
                    || (seen == victimSeen
                            && hostNames[holderHost[base + i]].compareTo(hostNames[holderHost[base + victim]]) < 0)) {
                victim = i;
            }
        }
        holderRefs[holderHost[base + victim]]--;
        holderHost[base + victim] = host;
        holderSeen[base + victim] = now;
        holderWritten[base + victim] = (int) written[host];
        holderUser[base + victim] = user;
    }

    static long hexHigh(String hash) {
        return PrefixHash.wordAt(hash, 0);
    }

    static long hexLow(String hash) {
        return PrefixHash.wordAt(hash, 16);
    }

    private static int powerOfTwoAtLeast(int n) {
        int power = 1;
        while (power < n) {
            power <<= 1;
        }
        return power;
    }
}
