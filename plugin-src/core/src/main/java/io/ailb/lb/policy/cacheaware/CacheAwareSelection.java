package io.ailb.lb.policy.cacheaware;

import io.ailb.codec.resp.RespValue;
import io.ailb.lb.policy.inflight.InflightSelection;
import io.ailb.lb.policy.inflight.SelectionReply;
import io.ailb.lb.redis.RedisCall;
import io.ailb.lb.redis.RedisCommand;
import io.ailb.lb.redis.RedisKeys;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The calls of cache_aware.lua and cache_aware_release.lua and the decoded cache_aware.lua reply. See the scripts for
 * the KEYS/ARGV layouts; this class is their only Java-side writer and reader.
 */
public final class CacheAwareSelection extends SelectionReply {
    private final long matchedTokens;
    private final long cost;
    private final long work;
    private final long firstTokenInMillis;

    private CacheAwareSelection(List<RespValue> parts) {
        super(parts);
        this.matchedTokens = integerAt(parts, 4);
        this.cost = integerAt(parts, 5);
        this.work = integerAt(parts, 6);
        this.firstTokenInMillis = integerAt(parts, 7);
    }

    /** Call parameters that come from the policy config. */
    public static final class Settings {
        private final InflightSelection.Settings inflight;
        private final double inflightTokens;
        private final double overloadQueueRequests;
        private final int maxHolders;
        private final long kvCacheTokens;
        private final double recentWorkShare;
        private final double prefillTokensPerSecond;

        /**
         * {@code inflight} as for select.lua, its prefix TTL being the block keys' TTL here; {@code inflightTokens},
         * {@code overloadQueueRequests}, {@code maxHolders}, {@code kvCacheTokens} (the KV cache of one instance,
         * 0 = unknown: nothing is evicted), {@code recentWorkShare} (0 = none) and {@code prefillTokensPerSecond} (the
         * prefill rate of one instance assumed for a request whose response does not stream until the fit of
         * first-token times has learned one) are cache_aware.lua's own (see the script).
         */
        public Settings(
                InflightSelection.Settings inflight,
                double inflightTokens,
                double overloadQueueRequests,
                int maxHolders,
                long kvCacheTokens,
                double recentWorkShare,
                double prefillTokensPerSecond) {
            this.inflight = inflight;
            this.inflightTokens = inflightTokens;
            this.overloadQueueRequests = overloadQueueRequests;
            this.maxHolders = maxHolders;
            this.kvCacheTokens = kvCacheTokens;
            this.recentWorkShare = recentWorkShare;
            this.prefillTokensPerSecond = prefillTokensPerSecond;
        }

        /** KV cache of one instance in tokens; 0 = unknown. */
        public long kvCacheTokens() {
            return kvCacheTokens;
        }

        /**
         * These settings for one decision: judging evictions with {@code kvCacheTokens} (0 = none) and expecting
         * unstreamed first tokens at {@code prefillTokensPerSecond}; this object when it already does both.
         */
        public Settings forDecision(long kvCacheTokens, double prefillTokensPerSecond) {
            return kvCacheTokens == this.kvCacheTokens && prefillTokensPerSecond == this.prefillTokensPerSecond
                    ? this
                    : new Settings(
                            inflight,
                            inflightTokens,
                            overloadQueueRequests,
                            maxHolders,
                            kvCacheTokens,
                            recentWorkShare,
                            prefillTokensPerSecond);
        }

        /** The prefill rate assumed for unstreamed requests until the fit learns one, tokens per second. */
        public double prefillTokensPerSecond() {
            return prefillTokensPerSecond;
        }

        public double inflightTokens() {
            return inflightTokens;
        }

        /** Share of a host's recent work beyond the fleet's mean that counts against it; 0 = none. */
        public double recentWorkShare() {
            return recentWorkShare;
        }

        /** The settings cache_aware.lua shares with select.lua. */
        public InflightSelection.Settings inflight() {
            return inflight;
        }

        public int maxHolders() {
            return maxHolders;
        }

        public double overloadQueueRequests() {
            return overloadQueueRequests;
        }
    }

    /** What the script needs to know about the request. */
    public static final class Demand {
        private final List<String> blockHashes;
        private final List<Integer> blockTokens;
        private final List<Integer> answeredTokens;
        private final int promptTokens;
        private final String sessionHash;
        private final boolean streams;

        /**
         * {@code blockHashes} the chained prefix hashes, {@code blockTokens} the cumulative estimated prompt tokens at
         * the end of each block (same size), {@code promptTokens} the whole prompt; no answers follow any block.
         */
        public Demand(List<String> blockHashes, List<Integer> blockTokens, int promptTokens) {
            this(blockHashes, blockTokens, blockTokens, promptTokens, null, false);
        }

        /**
         * As above, with {@code answeredTokens} (same size) the tokens a host that served a prompt ending at each
         * block holds once it answered ({@link io.ailb.lb.request.RequestInfo#answeredTokens()}).
         */
        public Demand(
                List<String> blockHashes, List<Integer> blockTokens, List<Integer> answeredTokens, int promptTokens) {
            this(blockHashes, blockTokens, answeredTokens, promptTokens, null, false);
        }

        private Demand(
                List<String> blockHashes,
                List<Integer> blockTokens,
                List<Integer> answeredTokens,
                int promptTokens,
                String sessionHash,
                boolean streams) {
            if (blockHashes.size() != blockTokens.size() || blockTokens.size() != answeredTokens.size()) {
                throw new IllegalArgumentException("one token count and one answered count per block");
            }
            this.blockHashes = blockHashes;
            this.blockTokens = blockTokens;
            this.answeredTokens = answeredTokens;
            this.promptTokens = Math.max(0, promptTokens);
            this.sessionHash = sessionHash;
            this.streams = streams;
        }

        /** The same demand in the session whose id hashes to {@code sessionHash} (see cache_aware.lua). */
        public Demand inSession(String sessionHash) {
            return new Demand(blockHashes, blockTokens, answeredTokens, promptTokens, sessionHash, streams);
        }

        /**
         * The same demand for a request whose response streams: its first response byte is its first token, whose
         * time the policy learns from (see cache_aware.lua's per_request).
         */
        public Demand streaming() {
            return new Demand(blockHashes, blockTokens, answeredTokens, promptTokens, sessionHash, true);
        }

        /** Whether the response streams, so its first byte is the first token. */
        boolean streams() {
            return streams;
        }

        public int promptTokens() {
            return promptTokens;
        }

        /** The hash of the request's session id, null when it names none. */
        String sessionHash() {
            return sessionHash;
        }

        /** The chained block hashes, 32 hex digits each. */
        List<String> blockHashes() {
            return blockHashes;
        }

        /** The cumulative estimated prompt tokens at the end of each block. */
        List<Integer> blockTokens() {
            return blockTokens;
        }

        /** Per block, the tokens a host that served a prompt ending there holds with its answer. */
        List<Integer> answeredTokens() {
            return answeredTokens;
        }

        public int blocks() {
            return blockHashes.size();
        }
    }

    /**
     * The cache_aware.lua call. {@code randomValue} in {@code [0, Integer.MAX_VALUE)}; {@code leaseId} as for select;
     * {@code nowMillis} the gateway's clock, which ages the hosts' recent work.
     */
    public static RedisCommand command(
            RedisKeys keys,
            Demand demand,
            List<String> healthyHosts,
            List<String> unhealthyHosts,
            Settings settings,
            int randomValue,
            String leaseId,
            long nowMillis) {
        boolean inSession = demand.sessionHash != null;
        List<String> keyList = new ArrayList<>(13 + demand.blockHashes.size());
        keyList.add(keys.inflight());
        keyList.add(keys.load());
        keyList.add(keys.cacheAwareCleaned());
        keyList.add(keys.cacheAwareLeases());
        keyList.add(keys.cacheAwareLeaseInfo());
        keyList.add(keys.cacheAwareRouted());
        keyList.add(keys.cacheAwareWritten());
        keyList.add(keys.cacheAwareRecent());
        keyList.add(keys.cacheAwareHeld());
        keyList.add(keys.cacheAwareWaiting());
        keyList.add(keys.cacheAwareUnseenFirstTokens());
        keyList.add(keys.cacheAwareDrain());
        if (inSession) {
            keyList.add(keys.cacheAwareSession(demand.sessionHash));
        }
        for (String hash : demand.blockHashes) {
            keyList.add(keys.holders(hash));
        }
        List<String> args = settings.inflight.leadingArgs(
                randomValue, leaseId, 19 + 2 * demand.blockTokens.size() + healthyHosts.size() + unhealthyHosts.size());
        args.add(decimal(settings.inflightTokens));
        args.add(decimal(settings.overloadQueueRequests));
        args.add(Integer.toString(demand.promptTokens));
        args.add(Integer.toString(settings.maxHolders));
        args.add(inSession ? "1" : "0");
        args.add(Integer.toString(demand.blockTokens.size()));
        args.add(Long.toString(settings.kvCacheTokens));
        args.add(decimal(settings.recentWorkShare));
        args.add(Long.toString(nowMillis));
        args.add(demand.streams ? "1" : "0");
        args.add(decimal(settings.prefillTokensPerSecond));
        for (int tokens : demand.blockTokens) {
            args.add(Integer.toString(tokens));
        }
        for (int tokens : demand.answeredTokens) {
            args.add(Integer.toString(tokens));
        }
        InflightSelection.addHosts(args, healthyHosts, unhealthyHosts);
        return RedisCommand.script(CacheAwareScripts.CACHE_AWARE, keyList, args);
    }

    /**
     * cache_aware_first_token.lua for {@code leaseId}, without its last argument, the gateway's clock in ms when the
     * first token came ({@link RedisCall#clocked}): takes the request's prefill tokens off its host's queue and the
     * request off its waiting ones, times a streamed request's first token and the host's queue draining, keeping the
     * in-flight count for the release. Safe more than once and after the release.
     */
    public static RedisCommand firstToken(RedisKeys keys, String leaseId) {
        return RedisCommand.script(
                CacheAwareScripts.CACHE_AWARE_FIRST_TOKEN,
                Arrays.asList(
                        keys.load(),
                        keys.cacheAwareLeases(),
                        keys.cacheAwareLeaseInfo(),
                        keys.cacheAwareWaiting(),
                        keys.cacheAwareRouted(),
                        keys.cacheAwareDrain()),
                Collections.singletonList(leaseId));
    }

    /**
     * cache_aware_release.lua for {@code leaseId}: gives back the count, the work and the held KV cache_aware.lua took
     * under that lease, if it did and nothing gave them back yet. Safe when the call's outcome is unknown, and more than once.
     * With evictions judged ({@code settings}' KV size known) the lease is then kept as ended for its TTL, holding its
     * host's written count at the end: the blocks the request used count as used until then.
     */
    public static RedisCommand release(RedisKeys keys, String leaseId, Settings settings) {
        return RedisCommand.script(
                CacheAwareScripts.CACHE_AWARE_RELEASE,
                Arrays.asList(
                        keys.inflight(),
                        keys.load(),
                        keys.cacheAwareLeases(),
                        keys.cacheAwareLeaseInfo(),
                        keys.cacheAwareHeld(),
                        keys.cacheAwareWaiting(),
                        keys.cacheAwareWritten()),
                Arrays.asList(
                        leaseId,
                        Integer.toString(settings.kvCacheTokens > 0 ? settings.inflight.leaseTtlSeconds() : 0),
                        Integer.toString(settings.inflight.inflightTtlSeconds())));
    }

    /** Decodes a cache_aware.lua reply; null when it does not have the script's shape. */
    public static CacheAwareSelection parse(RespValue reply) {
        List<RespValue> parts = validParts(reply, 5);
        return parts == null ? null : new CacheAwareSelection(parts);
    }

    /** A number as Lua's tonumber reads it: integral values without a fraction, others in Java's notation. */
    static String decimal(double value) {
        if (value == Math.floor(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        return Double.toString(value);
    }

    /** Estimated prompt tokens the chosen host has cached. */
    public long matchedTokens() {
        return matchedTokens;
    }

    /** The chosen host's cost in tokens: its queue, its weighted uncached prompt tokens and its in-flight requests. */
    public long cost() {
        return cost;
    }

    /** Prefill tokens this request added to the host's queue (taken off at its first token or its release). */
    public long work() {
        return work;
    }

    /**
     * For a response that does not stream, when its first token is expected, in ms after the routing, or -1 when its
     * work counts until its end (routed under overload); else 0.
     */
    public long firstTokenInMillis() {
        return firstTokenInMillis;
    }
}
