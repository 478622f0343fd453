package io.ailb.lb.policy.cacheaware;

import io.ailb.codec.hash.PrefixHash;
import io.ailb.codec.resp.RespValue;
import io.ailb.codec.util.Utf8;
import io.ailb.lb.config.BoolField;
import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.ConfigField;
import io.ailb.lb.config.ConfigView;
import io.ailb.lb.config.EnumField;
import io.ailb.lb.config.NumberField;
import io.ailb.lb.config.StringField;
import io.ailb.lb.policy.LoadBalancingPolicy;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.policy.ResponseObserver;
import io.ailb.lb.policy.ScrapeRequest;
import io.ailb.lb.policy.SharedState;
import io.ailb.lb.policy.Step;
import io.ailb.lb.policy.clusterheader.HeaderName;
import io.ailb.lb.policy.endpointmetrics.MetricsPath;
import io.ailb.lb.policy.inflight.InflightRouter;
import io.ailb.lb.policy.inflight.RedisPolicyConfig;
import io.ailb.lb.policy.inflight.SelectionInputs;
import io.ailb.lb.redis.RedisCall;
import io.ailb.lb.redis.RedisTarget;
import io.ailb.lb.request.RequestInfo;
import io.ailb.lb.request.RequestParser;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * {@code cache_aware}: the least estimated time to first token, decided atomically in Redis by one cache_aware.lua
 * call per request, so every gateway on the same Redis shares one view of what was sent where.
 *
 * <p>For each healthy host h the script computes, in prompt tokens,
 * {@code cost_h = queued_h - drained_h + perRequest × waiting_h + weight × uncached_h + inflightTokens × inflight_h}:
 * {@code queued_h} the prefill tokens of the requests routed to h whose first token has not come back,
 * {@code drained_h} what h has prefilled of them by now (it works through its queue from the later of its last first
 * token and its queue's last filling from empty, at a throughput learned from first tokens, while that throughput is
 * at least the prefill rate assumed; without it a long prompt nearly prefilled counts in full until its first token),
 * {@code waiting_h} how many they are, {@code perRequest} what one of them adds to a first-token time beyond its tokens
 * (learned: each streamed request's time from its routing to its first token is fitted against the requests and the
 * tokens ahead of it on its host; an engine that serves requests one at a time pays a fixed cost for each, one that
 * batches them into steps hardly any; 0 until 50 are timed), {@code uncached_h} this request's prompt beyond
 * the longest prefix routed to h (prefixes of requests still queued there count: they will be cached when this one
 * runs; assistant messages right after that prefix are the answer h generated to it, and count as cached there too),
 * {@code inflight_h} its requests in flight. {@code weight = 1 + q + q² / overloadQueueRequests}, q the typical
 * queue per host counted in requests (the mean of queued tokens over the hosts but the one with the longest queue, over
 * the recent mean work per request; one host falling behind does not make copies of its prefixes dearer): on an idle
 * fleet the fastest first token wins; every token prefilled again delays the requests that queue behind it meanwhile,
 * about q of them, so cached prefixes weigh more as queues grow, and far more once every queue is long (overload,
 * where work added anywhere is never caught up); the square term counts twice while queues drain at an instance's
 * prefill rate (the overload is then the prefill's: every token found cached is time the queues gain), once when
 * something else holds them (decode seats, per-request costs), where sessions kept on a host behind only wait. A
 * request that starts a conversation on a prefix other requests share, while even the least busy holder of that prefix
 * has over 1.2 times the mean count in flight and queues have formed (q at least 0.1), weighs the counts in flight
 * three times: its later turns would come back to the busiest hosts. When even the least queued holder also has more
 * queued than the typical queue, and that queue holds at least one request (q at least 1), each host's uncached tokens
 * weigh by that host's own queue (never more than the fleet's weight), so a host with a short queue can take the
 * conversation for the price of its copy there. The cheapest host wins (random tie-break) among those below
 * {@code maxRequestCount}; the request queues its uncached tokens and its place among the waiting under a per-request lease,
 * taken off by the first-response call (the first response byte is the first token; it carries the gateway's clock,
 * which times the first token) or the stream's release, or after {@code leaseTTL} by the next call. A response that
 * does not stream shows its first byte only with its last: its work is taken off by the first call after its first
 * token is expected (the fit's prediction, or, before the fit has learned, its tokens and those ahead at the rate the
 * engines' first-token metrics imply, see {@link LearnedPrefillRate}, or at {@code prefillTokensPerSecond} until they
 * report 50 first tokens). While no streamed request has been timed, one routed once the typical queue has reached four
 * requests is taken off only at its end: under overload its decode crawls behind full prefill steps, which its prefill
 * does not weigh.
 *
 * <p>A request without prefix blocks (no body, unparseable body) goes to the least loaded host, weighed by its own
 * estimated size, unless it names its session in {@code sessionHeader}: the host of the session's last request then
 * counts as holding that request's prompt.
 *
 * <p>With {@code index: local} the same rule runs in the VM over a {@link LocalCacheIndex} (no Redis): the routed
 * Step's observer counts the request in flight and waiting when it takes effect, takes its work off the queue and
 * times it at the first response byte (each VM fits its own requests' times; a response that does not stream has its
 * work taken off when its first token is expected, as in Redis mode) and gives the count back at the stream's end. Each VM (Envoy runs one per worker thread) routes its
 * own share of the traffic; every 250 ms it exchanges what it routed with the gateway's other VMs through shared data,
 * and its counts as soon as a decision takes effect ({@link IndexExchange}), so each decides over the whole gateway's
 * traffic.
 */
public final class CacheAwarePolicy implements LoadBalancingPolicy {
    static final String NAME = "cache_aware";
    /** Decision attribute: the chosen host's cost in tokens (queue, weighted uncached prompt, in-flight requests). */
    public static final String ATTR_COST = "cost";
    /** Decision attribute: estimated prompt tokens the chosen host has cached. */
    public static final String ATTR_MATCHED_TOKENS = "matched_tokens";
    /** Decision attribute: prefill tokens this request queued on the chosen host. */
    public static final String ATTR_WORK = "work";
    /**
     * Decision attribute of a request whose response does not stream: in how many ms its first token is expected (its
     * work then leaves the host's queue), -1 when routed under overload before any streamed request was timed (its
     * work counts until its end); absent when it streams or is expected at once.
     */
    public static final String ATTR_FIRST_TOKEN_IN_MS = "first_token_in_ms";

    static final double MAX_INFLIGHT_TOKENS = 1_000_000;
    static final double MAX_OVERLOAD_QUEUE_REQUESTS = 1_000_000;
    static final NumberField INFLIGHT_TOKENS = NumberField.optional(
            "inflightTokens",
            60,
            0,
            MAX_INFLIGHT_TOKENS,
            "queue cost of each request in flight on a host, in prompt tokens: its decode slows every batch step, "
                    + "and the count is the host's share of the conversations under way, which new ones even out; "
                    + "three times that for a conversation starting on a shared prefix whose every holder has over "
                    + "1.2 times the mean in flight, once queues form");
    static final NumberField OVERLOAD_QUEUE_REQUESTS = NumberField.optional(
            "overloadQueueRequests",
            4,
            0,
            MAX_OVERLOAD_QUEUE_REQUESTS,
            "typical queue per host (the mean over the hosts but the longest), in requests of the recent mean size, "
                    + "from which uncached tokens weigh more than linearly: "
                    + "weight = 1 + q + g × q²/overloadQueueRequests, g = 2 while queues drain at an instance's "
                    + "prefill rate, else 1, so prefixes stay where they are cached when every queue is long; "
                    + "0 = weight 1 + q");
    static final double MAX_KV_CACHE_TOKENS = 1e12;
    static final NumberField KV_CACHE_TOKENS = NumberField.optional(
            "kvCacheTokens",
            0,
            0,
            MAX_KV_CACHE_TOKENS,
            "KV cache of one instance in tokens; once more new prompt tokens were routed to an instance since a "
                    + "prefix's last use there, the prefix counts as evicted from it, as its LRU cache drops it "
                    + "(unless the request of that use is still running there: its blocks stay; once it ended, the "
                    + "tokens routed since its end count, against the room the running requests leave, for leaseTTL "
                    + "after it), and "
                    + "the new prompt tokens of the requests in flight there that leave no room for a request's own "
                    + "count against the instance when another has room (it waits for them to end); "
                    + "0 = the smallest size the instances report in their metrics (vLLM cache_config_info "
                    + "num_gpu_blocks × block_size, SGLang max_total_num_tokens; from the host info, or scraped from "
                    + "metricsPath every 10 s when the info has none), and when none does, prefixes stay until "
                    + "redisKeyTTL; set it above the reported size when instances also keep prefixes outside GPU "
                    + "memory (CPU offloading), 1e12 to never judge evictions or room");
    static final double MAX_RECENT_WORK_SHARE = 10;
    static final NumberField RECENT_WORK_SHARE = NumberField.optional(
            "recentWorkShare",
            0.25,
            0,
            MAX_RECENT_WORK_SHARE,
            "share of the prompt work a host took on in the last seconds (fading with a 5 s time constant) beyond the "
                    + "fleet's mean that counts against it when a request starts a conversation (no block of it cached "
                    + "anywhere): the conversations a host just started come back for their next turns, so new ones "
                    + "(and new prompt groups) even out across hosts; 0 = off");
    static final StringField SESSION_HEADER = StringField.optional(
            "sessionHeader",
            "",
            "request header naming the client's session (e.g. x-session-id); a request carrying it counts the host of "
                    + "its session's last request as holding that request's prompt, so a conversation stays with its "
                    + "cache even when its body cannot be read (over max_body_bytes, not JSON); empty = off");
    static final double DEFAULT_PREFILL_TOKENS_PER_SECOND = 10_000;
    static final double MAX_PREFILL_TOKENS_PER_SECOND = 1e9;
    static final NumberField PREFILL_TOKENS_PER_SECOND = NumberField.optional(
            "prefillTokensPerSecond",
            DEFAULT_PREFILL_TOKENS_PER_SECOND,
            1,
            MAX_PREFILL_TOKENS_PER_SECOND,
            "prefill rate of one instance, in prompt tokens a second, assumed for requests whose response does not "
                    + "stream (\"stream\": false), whose first token the gateway never sees: their prompt leaves the "
                    + "host's queue once the tokens queued ahead and their own would be prefilled at this rate; "
                    + "once the instances' metrics (vLLM's or SGLang's time_to_first_token_seconds) count 50 first "
                    + "tokens of such requests, the rate learned from them replaces it (the rate in use times the "
                    + "square root of how much longer the expected first tokens were than the instances' mean, over "
                    + "the last minute or so), and once 50 streamed requests have been timed, what their first "
                    + "tokens took; also the rate a host's queue is taken to drain at between first tokens, until "
                    + "50 first tokens have shown how fast the instances work through their queues");
    static final BoolField LEARN_PREFILL_RATE = BoolField.optional(
            "learnPrefillRate",
            true,
            "learn the prefill rate of requests whose response does not stream from the instances' "
                    + "time_to_first_token_seconds metrics (see prefillTokensPerSecond); false = keep "
                    + "prefillTokensPerSecond, e.g. when it was measured on the instances");
    static final String INDEX_REDIS = "redis";
    static final String INDEX_LOCAL = "local";
    static final EnumField INDEX = EnumField.optional(
            "index",
            INDEX_REDIS,
            "where the cache and load state lives: redis = one Redis shared by every gateway (a script per request); "
                    + "local = in the gateway, no Redis (each Envoy worker thread keeps its own, pooled with the "
                    + "gateway's other workers through shared data: routed prefixes every 250 ms, load at every "
                    + "decision; gateways do not pool)",
            INDEX_REDIS,
            INDEX_LOCAL);
    /** The lb_config fields this policy reads. */
    public static final List<ConfigField> FIELDS = fields();
    /** Holders one block key keeps; the least recently seen go first. */
    static final int MAX_HOLDERS = 8;
    /**
     * Blocks one local index holds. An entry costs about 117 bytes (two hash words 16, hash chain 4 and bucket 4, LRU
     * links 8, use count 8, first seen 8, last write 4, holder count 1, 8 holders × (host id 4 + last seen 4) 64), so
     * a full index takes 65,536 × 117 ≈ 7.3 MiB of the 64 MiB TeaVM heap (BuildWasm's default --max-heap-mb, which
     * plugin-src/shell keeps), and a new config's index may briefly coexist with the old one's. It covers about
     * 65,536 distinct messages or 4 KiB chunks routed within redisKeyTTL: at 2,000 tokens a block, 130 M prompt
     * tokens, more than the KV caches of a few dozen instances hold.
     */
    static final int LOCAL_MAX_BLOCKS = 65_536;

    /**
     * How often a local index exchanges with the gateway's other VMs: a follow-up turn comes at least a response and
     * a user's or agent's think time after its first turn, seconds in practice, so a quarter second is rarely too
     * late, and a tick (a few shared-data reads and, when something changed, one write of ≤ 70 KiB) stays far below
     * a worker's time.
     */
    static final long SHARE_PERIOD_MILLIS = 250;
    /** How often a Redis-mode VM looks for due scrapes: a tick with none due walks a map of the hosts without metrics. */
    static final long SCRAPE_TICK_MILLIS = 1000;
    /** Policies created in this VM: each gets its own name among the gateway's publishers. */
    private static int instancesCreated;

    /** Null with index local. */
    private final RedisTarget target;

    private final CacheAwareSelection.Settings settings;
    /** Lower-case header name, "" when sessions are off. */
    private final String sessionHeader;
    /** Null with index redis. */
    private final LocalCacheIndex index;
    /** Null with index redis. */
    private final IndexExchange exchange;
    /** The instances' KV cache size (used when kvCacheTokens is 0) and first tokens (the unstreamed prefill rate). */
    private final ReportedMetrics reported;

    private final boolean learnPrefillRate;

    public CacheAwarePolicy(ConfigView config) throws ConfigException {
        boolean local = INDEX_LOCAL.equals(INDEX.read(config));
        RedisPolicyConfig redis = local
                ? RedisPolicyConfig.withPrefixKeysAndOptionalRedis(config)
                : RedisPolicyConfig.withPrefixKeys(config);
        double inflightTokens = INFLIGHT_TOKENS.read(config);
        double overloadQueueRequests = OVERLOAD_QUEUE_REQUESTS.read(config);
        long kvCacheTokens = (long) KV_CACHE_TOKENS.read(config);
        double recentWorkShare = RECENT_WORK_SHARE.read(config);
        double prefillTokensPerSecond = PREFILL_TOKENS_PER_SECOND.read(config);
        this.learnPrefillRate = LEARN_PREFILL_RATE.read(config);
        this.sessionHeader = HeaderName.readOrEmpty(SESSION_HEADER, config);
        this.reported = new ReportedMetrics(MetricsPath.read(config));
        RedisPolicyConfig.ENABLE_DETAIL_LOG.read(config);
        this.settings = new CacheAwareSelection.Settings(
                redis.settings(),
                inflightTokens,
                overloadQueueRequests,
                MAX_HOLDERS,
                kvCacheTokens,
                recentWorkShare,
                prefillTokensPerSecond);
        this.target = local ? null : redis.target();
        this.index = local ? localIndex(settings, LOCAL_MAX_BLOCKS) : null;
        // VMs with the same lb_config route the same services: they pool under one key prefix.
        this.exchange = local
                ? new IndexExchange(
                        "ailb.cache_aware."
                                + Integer.toHexString(config.json().toJson().hashCode()),
                        instancesCreated++,
                        index)
                : null;
    }

    private static List<ConfigField> fields() {
        List<ConfigField> all = new ArrayList<>();
        all.add(INDEX);
        all.addAll(RedisPolicyConfig.fieldsWithPrefixKeysRedisRequiredWhen("index is redis"));
        all.add(INFLIGHT_TOKENS);
        all.add(OVERLOAD_QUEUE_REQUESTS);
        all.add(KV_CACHE_TOKENS);
        all.add(RECENT_WORK_SHARE);
        all.add(PREFILL_TOKENS_PER_SECOND);
        all.add(LEARN_PREFILL_RATE);
        all.add(MetricsPath.FIELD);
        all.add(SESSION_HEADER);
        all.add(RedisPolicyConfig.ENABLE_DETAIL_LOG);
        return Collections.unmodifiableList(all);
    }

    /** A local index deciding as cache_aware.lua with {@code settings}. */
    static LocalCacheIndex localIndex(CacheAwareSelection.Settings settings, int maxBlocks) {
        return new LocalCacheIndex(
                maxBlocks,
                settings.maxHolders(),
                settings.inflight().maxRequestCount(),
                settings.inflight().cleanIntervalSeconds(),
                settings.inflight().prefixTtlSeconds(),
                settings.inflightTokens(),
                settings.overloadQueueRequests(),
                settings.recentWorkShare(),
                settings.prefillTokensPerSecond(),
                settings.inflight().leaseTtlSeconds());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean readsBody() {
        return true;
    }

    /** A system prompt shared by many conversations is its own block, so new conversations find where it is cached. */
    @Override
    public RequestParser.BlockBoundaries blockBoundaries() {
        return RequestParser.BlockBoundaries.EVERY_MESSAGE_BUT_ASSISTANT;
    }

    /** None with index local: no Redis connection is set up. */
    @Override
    public List<RedisTarget> redisTargets() {
        return target == null ? Collections.<RedisTarget>emptyList() : Collections.singletonList(target);
    }

    /**
     * With index local, the exchange with the gateway's other VMs (see {@link IndexExchange}); either way the scrapes
     * of hosts whose info carries no metrics, for their KV cache size and first tokens.
     */
    @Override
    public long tickPeriodMillis() {
        return exchange != null ? SHARE_PERIOD_MILLIS : SCRAPE_TICK_MILLIS;
    }

    @Override
    public void shareState(SharedState state, long nowMillis) {
        if (exchange != null) {
            // What this VM publishes leaves out the prefill its unstreamed requests are expected to have done.
            index.settleUnseenFirstTokens(nowMillis);
            exchange.exchange(state, nowMillis);
        }
    }

    /** Due only for hosts seen without metrics in their info, each at most every {@code REREAD_MILLIS}. */
    @Override
    public List<ScrapeRequest> onTick(long nowMillis) {
        return reported.dueScrapes(nowMillis);
    }

    @Override
    public void onScrapeResult(String host, int httpStatus, String body, long nowMillis) {
        reported.onScrapeResult(host, httpStatus, body, nowMillis);
    }

    @Override
    public Step select(RequestContext ctx) {
        SelectionInputs in = SelectionInputs.of(ctx, NAME);
        if (in.fallback() != null) {
            return in.fallback();
        }
        long reportedKvCacheTokens = reported.smallestTokens(ctx.clusterName(), ctx.healthy(), ctx.nowMillis());
        long kvCacheTokens = settings.kvCacheTokens() > 0 ? settings.kvCacheTokens() : reportedKvCacheTokens;
        double prefillTokensPerSecond = learnPrefillRate
                ? reported.prefillRate().tokensPerSecond(settings.prefillTokensPerSecond())
                : settings.prefillTokensPerSecond();
        if (index != null) {
            index.judgeEvictionsWith(kvCacheTokens);
            index.expectPrefillAt(prefillTokensPerSecond);
            return selectLocally(ctx, in, prefillTokensPerSecond);
        }
        CacheAwareSelection.Demand demand = demand(ctx);
        long nowMillis = ctx.nowMillis();
        CacheAwareSelection.Settings decision = settings.forDecision(kvCacheTokens, prefillTokensPerSecond);
        return Step.redis(
                        target,
                        CacheAwareSelection.command(
                                in.keys(),
                                demand,
                                in.healthyHosts(),
                                in.unhealthyHosts(),
                                decision,
                                in.randomValue(),
                                in.leaseId(),
                                nowMillis),
                        reply -> onReply(reply, in, demand.streams(), prefillTokensPerSecond, nowMillis))
                .withAttribute(Step.ATTR_POLICY, NAME)
                .withRelease(target, CacheAwareSelection.release(in.keys(), in.leaseId(), decision));
    }

    /** The request's blocks, size and session; a request without blocks is weighed by its body size. */
    CacheAwareSelection.Demand demand(RequestContext ctx) {
        CacheAwareSelection.Demand demand = demand(ctx.request());
        String session = sessionHeader.isEmpty() ? null : ctx.requestHeader(sessionHeader);
        if (session == null || session.isEmpty()) {
            return demand;
        }
        byte[] id = Utf8.encode(session);
        return demand.inSession(PrefixHash.hexOf(id, 0, id.length));
    }

    static CacheAwareSelection.Demand demand(RequestInfo request) {
        if (request == null || !request.parsed()) {
            int bytes = request == null ? 0 : request.bodyBytes();
            return new CacheAwareSelection.Demand(
                    Collections.<String>emptyList(), Collections.<Integer>emptyList(), (bytes + 3) / 4);
        }
        CacheAwareSelection.Demand demand = new CacheAwareSelection.Demand(
                request.prefixHashes(),
                request.prefixTokens(),
                request.answeredTokens(),
                request.estimatedPromptTokens());
        return request.stream() ? demand.streaming() : demand;
    }

    private Step onReply(
            RespValue reply, SelectionInputs in, boolean streams, double prefillTokensPerSecond, long routedAtMillis) {
        CacheAwareSelection selection = CacheAwareSelection.parse(reply);
        Step step = decided(selection, in);
        if (step.kind() == Step.Kind.ROUTE && !selection.full()) {
            noteRouted(
                    streams, selection.host(), selection.firstTokenInMillis(), prefillTokensPerSecond, routedAtMillis);
            step = step.withFirstResponseCall(
                    RedisCall.clocked(target, CacheAwareSelection.firstToken(in.keys(), in.leaseId())));
        }
        return step;
    }

    /**
     * Tells the learned rate of a routed request, Redis's decision or the local index's: a streamed one counts
     * towards the fit taking over; an unstreamed one, when its first token is expected and at which rate (the fit's
     * prediction once it has learned, when the rate is unused), unless it counts until its end.
     */
    private void noteRouted(
            boolean streams, String host, long firstTokenInMillis, double prefillTokensPerSecond, long nowMillis) {
        if (streams) {
            reported.prefillRate().streamedRouted();
        } else if (firstTokenInMillis != LocalCacheIndex.FIRST_TOKEN_AT_END) {
            reported.prefillRate().routed(host, firstTokenInMillis, prefillTokensPerSecond, nowMillis);
        }
    }

    /** The Step of a decision, Redis's or the local index's: same reply, same attributes. */
    private static Step decided(CacheAwareSelection selection, SelectionInputs in) {
        Step step = InflightRouter.stepFor(NAME, selection, in.healthy(), true);
        if (selection == null || selection.full()) {
            return step;
        }
        step = step.withAttribute(ATTR_MATCHED_TOKENS, Long.toString(selection.matchedTokens()))
                .withAttribute(ATTR_COST, Long.toString(selection.cost()))
                .withAttribute(ATTR_WORK, Long.toString(selection.work()));
        long firstTokenIn = selection.firstTokenInMillis();
        return firstTokenIn != 0 ? step.withAttribute(ATTR_FIRST_TOKEN_IN_MS, Long.toString(firstTokenIn)) : step;
    }

    /** The local index decides now; the routed request's observer keeps its counts (see {@link LocalRequest}). */
    private Step selectLocally(RequestContext ctx, SelectionInputs in, double prefillTokensPerSecond) {
        CacheAwareSelection.Demand demand = demand(ctx);
        long nowSeconds = Math.floorDiv(ctx.nowMillis(), 1000L);
        index.settleUnseenFirstTokens(ctx.nowMillis());
        exchange.beforeDecision(ctx.nowMillis());
        LocalCacheIndex.Choice choice = index.select(
                ctx.clusterName(),
                demand.blockHashes(),
                demand.blockTokens(),
                demand.answeredTokens(),
                demand.promptTokens(),
                demand.sessionHash(),
                in.healthyHosts(),
                in.unhealthyHosts(),
                in.randomValue(),
                ctx.nowMillis(),
                demand.streams());
        Step step = decided(CacheAwareSelection.parse(choice.asReply()), in);
        if (step.kind() != Step.Kind.ROUTE) {
            return step;
        }
        noteRouted(demand.streams(), choice.host, choice.firstTokenInMillis, prefillTokensPerSecond, ctx.nowMillis());
        exchange.noteRouted(
                ctx.clusterName(),
                demand.blockHashes(),
                demand.sessionHash(),
                demand.promptTokens(),
                choice.host,
                nowSeconds);
        return step.withResponseObserver(
                new LocalRequest(index, exchange, ctx.clusterName(), choice, ctx.nowMillis(), demand.streams()));
    }

    /**
     * One routed request in a local index: counted in flight and waiting with its work queued once the route takes
     * effect, its work dequeued at the first response byte (which times it when its response streams), its count,
     * any work left and its place among the waiting given back at the stream's end. The flow calls each at most once,
     * and none for a route that never took effect.
     */
    private static final class LocalRequest implements ResponseObserver {
        private final LocalCacheIndex index;
        private final IndexExchange exchange;
        private final String service;
        private final String host;
        private final long work;
        /** Its number in the index, whose blocks on the host stay unevicted while it is in flight. */
        private final int user;

        private final long requestsAhead;
        private final long tokensAhead;
        private final long routedAtMillis;
        /** Its response streams: its first byte is its first token, which is timed. */
        private final boolean streams;
        /** When its unseen first token is expected (a response that does not stream); its end under overload. */
        private final long dueAtMillis;

        private final boolean dueAtEnd;

        private long queuedWork;
        private boolean waiting;

        LocalRequest(
                LocalCacheIndex index,
                IndexExchange exchange,
                String service,
                LocalCacheIndex.Choice choice,
                long routedAtMillis,
                boolean streams) {
            this.index = index;
            this.exchange = exchange;
            this.service = service;
            this.host = choice.host;
            this.work = choice.work;
            this.user = choice.user;
            this.requestsAhead = choice.requestsAhead;
            this.tokensAhead = choice.tokensAhead;
            this.routedAtMillis = routedAtMillis;
            this.streams = streams;
            this.dueAtEnd = choice.firstTokenInMillis == LocalCacheIndex.FIRST_TOKEN_AT_END;
            this.dueAtMillis = routedAtMillis + choice.firstTokenInMillis;
            this.queuedWork = work;
        }

        @Override
        public void onApplied(long nowMillis) {
            index.admit(host, queuedWork, routedAtMillis, user);
            waiting = true;
            if (!streams && !dueAtEnd) {
                index.expectUnseenFirstToken(dueAtMillis, () -> firstTokenCame(dueAtMillis, false));
            }
            exchange.countsChanged(nowMillis);
        }

        /**
         * Its work leaves the queue and it stops waiting, once: at its first byte, which the gateway {@code saw}, or
         * when its first token is due.
         */
        private boolean firstTokenCame(long atMillis, boolean saw) {
            if (!waiting) {
                return false;
            }
            index.firstToken(service, host, queuedWork, atMillis, saw);
            waiting = false;
            queuedWork = 0;
            return true;
        }

        @Override
        public void onResponseHeaders(int status, long nowMillis) {}

        @Override
        public void onFirstResponseBody(long nowMillis) {
            boolean came = firstTokenCame(nowMillis, true);
            if (came) {
                exchange.countsChanged(nowMillis);
            }
            if (came && streams) {
                index.timeFirstToken(service, requestsAhead, tokensAhead + work, nowMillis - routedAtMillis);
            }
        }

        @Override
        public void onStreamEnd(long nowMillis) {
            index.release(host, queuedWork, work, waiting, user, Math.floorDiv(nowMillis, 1000L));
            waiting = false;
            queuedWork = 0;
            exchange.countsChanged(nowMillis);
        }
    }
}
