package io.ailb.lb.policy.cacheaware;

import io.ailb.codec.hash.PrefixHash;
import io.ailb.codec.resp.RespValue;
import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.ConfigField;
import io.ailb.lb.config.ConfigView;
import io.ailb.lb.config.IntField;
import io.ailb.lb.config.NumberField;
import io.ailb.lb.config.StringField;
import io.ailb.lb.policy.LoadBalancingPolicy;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.policy.Step;
import io.ailb.lb.policy.clusterheader.HeaderName;
import io.ailb.lb.policy.inflight.InflightRouter;
import io.ailb.lb.policy.inflight.RedisPolicyConfig;
import io.ailb.lb.policy.inflight.SelectionInputs;
import io.ailb.lb.redis.RedisTarget;
import io.ailb.lb.request.RequestInfo;
import io.ailb.lb.request.RequestParser;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;

/**
 * {@code cache_aware}: the least estimated time to first token, decided atomically in Redis by one cache_aware.lua
 * call per request, so every gateway on the same Redis shares one view of what was sent where.
 *
 * <p>For each healthy host h the script computes, in prompt tokens,
 * {@code cost_h = queued_h + weight × uncached_h + inflightTokens × inflight_h}: {@code queued_h} the prefill tokens
 * of the requests routed to h whose first token has not come back, {@code uncached_h} this request's prompt beyond
 * the longest prefix routed to h (prefixes of requests still queued there count: they will be cached when this one
 * runs), {@code inflight_h} its requests in flight. {@code weight = 1 + mean queued / hitQueueTokens}: on an idle
 * fleet the fastest first token wins; as queues grow, prefilling a prefix again delays everyone queued behind it, so
 * cached prefixes weigh more and stay where they are. The cheapest host wins (random tie-break) among those below
 * {@code maxRequestCount}; the request queues its uncached tokens under a per-request lease, taken off by the
 * first-response call (the first response byte is the first token) or the stream's release, or after
 * {@code leaseTTL} by the next call.
 *
 * <p>A request without prefix blocks (no body, unparseable body) goes to the least loaded host, weighed by its own
 * estimated size, unless it names its session in {@code sessionHeader}: the host of the session's last request then
 * counts as holding that request's prompt.
 */
public final class CacheAwarePolicy implements LoadBalancingPolicy {
    static final String NAME = "cache_aware";
    /** Decision attribute: the chosen host's cost in tokens (queue, weighted uncached prompt, in-flight requests). */
    public static final String ATTR_COST = "cost";
    /** Decision attribute: estimated prompt tokens the chosen host has cached. */
    public static final String ATTR_MATCHED_TOKENS = "matched_tokens";
    /** Decision attribute: prefill tokens this request queued on the chosen host. */
    public static final String ATTR_WORK = "work";

    static final double MAX_INFLIGHT_TOKENS = 1_000_000;
    static final int MAX_HIT_QUEUE_TOKENS = 100_000_000;
    static final NumberField INFLIGHT_TOKENS = NumberField.optional(
            "inflightTokens",
            30,
            0,
            MAX_INFLIGHT_TOKENS,
            "queue cost of each request in flight on a host, in prompt tokens (its decode slows every batch step)");
    static final IntField HIT_QUEUE_TOKENS = IntField.optional(
            "hitQueueTokens",
            512,
            0,
            MAX_HIT_QUEUE_TOKENS,
            "tokens",
            "mean queued prefill tokens per host that add 1 to the weight of a request's uncached tokens when all "
                    + "the traffic is reused prefixes (the weight grows with the reused share); 0 = weight 1 at any load");
    static final StringField SESSION_HEADER = StringField.optional(
            "sessionHeader",
            "",
            "request header naming the client's session (e.g. x-session-id); a request carrying it counts the host of "
                    + "its session's last request as holding that request's prompt, so a conversation stays with its "
                    + "cache even when its body cannot be read (over max_body_bytes, not JSON); empty = off");
    /** The lb_config fields this policy reads. */
    public static final List<ConfigField> FIELDS = ConfigField.join(
            RedisPolicyConfig.FIELDS_WITH_PREFIX_KEYS,
            INFLIGHT_TOKENS,
            HIT_QUEUE_TOKENS,
            SESSION_HEADER,
            RedisPolicyConfig.ENABLE_DETAIL_LOG);
    /** Holders one block key keeps; the least recently seen go first. */
    static final int MAX_HOLDERS = 8;

    private final RedisTarget target;
    private final CacheAwareSelection.Settings settings;
    /** Lower-case header name, "" when sessions are off. */
    private final String sessionHeader;

    public CacheAwarePolicy(ConfigView config) throws ConfigException {
        RedisPolicyConfig redis = RedisPolicyConfig.withPrefixKeys(config);
        this.target = redis.target();
        double inflightTokens = INFLIGHT_TOKENS.read(config);
        int hitQueueTokens = HIT_QUEUE_TOKENS.read(config);
        this.sessionHeader = HeaderName.readOrEmpty(SESSION_HEADER, config);
        RedisPolicyConfig.ENABLE_DETAIL_LOG.read(config);
        this.settings = new CacheAwareSelection.Settings(redis.settings(), inflightTokens, hitQueueTokens, MAX_HOLDERS);
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

    @Override
    public List<RedisTarget> redisTargets() {
        return Collections.singletonList(target);
    }

    @Override
    public Step select(RequestContext ctx) {
        SelectionInputs in = SelectionInputs.of(ctx, NAME);
        if (in.fallback() != null) {
            return in.fallback();
        }
        return Step.redis(
                        target,
                        CacheAwareSelection.command(
                                in.keys(),
                                demand(ctx),
                                in.healthyHosts(),
                                in.unhealthyHosts(),
                                settings,
                                in.randomValue(),
                                in.leaseId()),
                        reply -> onReply(reply, in))
                .withAttribute(Step.ATTR_POLICY, NAME)
                .withRelease(target, CacheAwareSelection.release(in.keys(), in.leaseId()));
    }

    /** The request's blocks, size and session; a request without blocks is weighed by its body size. */
    CacheAwareSelection.Demand demand(RequestContext ctx) {
        CacheAwareSelection.Demand demand = demand(ctx.request());
        String session = sessionHeader.isEmpty() ? null : ctx.requestHeader(sessionHeader);
        if (session == null || session.isEmpty()) {
            return demand;
        }
        byte[] id = session.getBytes(StandardCharsets.UTF_8);
        return demand.inSession(PrefixHash.hexOf(id, 0, id.length));
    }

    static CacheAwareSelection.Demand demand(RequestInfo request) {
        if (request == null || !request.parsed()) {
            int bytes = request == null ? 0 : request.bodyBytes();
            return new CacheAwareSelection.Demand(
                    Collections.<String>emptyList(), Collections.<Integer>emptyList(), (bytes + 3) / 4);
        }
        return new CacheAwareSelection.Demand(
                request.prefixHashes(), request.prefixTokens(), request.estimatedPromptTokens());
    }

    private Step onReply(RespValue reply, SelectionInputs in) {
        CacheAwareSelection selection = CacheAwareSelection.parse(reply);
        Step step = InflightRouter.stepFor(NAME, selection, in.healthy(), true);
        if (selection == null || selection.full()) {
            return step;
        }
        step = step.withAttribute(ATTR_MATCHED_TOKENS, Long.toString(selection.matchedTokens()))
                .withAttribute(ATTR_COST, Long.toString(selection.cost()))
                .withAttribute(ATTR_WORK, Long.toString(selection.work()));
        if (step.kind() == Step.Kind.ROUTE && selection.work() > 0) {
            step = step.withFirstResponseCall(target, CacheAwareSelection.firstToken(in.keys(), in.leaseId()));
        }
        return step;
    }
}
