package io.ailb.lb.policy.cacheaware;

import io.ailb.codec.resp.RespValue;
import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.ConfigField;
import io.ailb.lb.config.ConfigView;
import io.ailb.lb.config.IntField;
import io.ailb.lb.config.NumberField;
import io.ailb.lb.policy.LoadBalancingPolicy;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.policy.Step;
import io.ailb.lb.policy.inflight.InflightRouter;
import io.ailb.lb.policy.inflight.RedisPolicyConfig;
import io.ailb.lb.policy.inflight.SelectionInputs;
import io.ailb.lb.redis.RedisTarget;
import io.ailb.lb.request.RequestInfo;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * {@code cache_aware}: load-aware prefix-cache routing with request-size-aware load, decided atomically in Redis by
 * one cache_aware.lua call per request, so every gateway on the same Redis shares one view.
 *
 * <p>For each healthy host h the script computes {@code cost_h = prefillWeight × (prompt − matched_h) + load_h}:
 * {@code matched_h} the estimated prompt tokens of the longest conversation prefix h served (block keys remember
 * several holders each), {@code load_h} the work of the requests in flight on h, each having added
 * {@code prefillWeight × its uncached prompt tokens + decodeWeight × its expected output tokens}. The cheapest host
 * wins (random tie-break) among those below {@code maxRequestCount}; the request adds its work under a per-request
 * lease, which the stream's release (or, after {@code leaseTTL}, the next call) gives back exactly.
 *
 * <p>No threshold switches between "affinity" and "balance" (SGLang, AIBrix): a cache holder keeps a conversation
 * until the work queued on it outweighs the prefill it would save. A request without prefix blocks (no body,
 * unparseable body) goes to the host with the least in-flight work, weighed by its own estimated size.
 */
public final class CacheAwarePolicy implements LoadBalancingPolicy {
    static final String NAME = "cache_aware";
    /** Decision attribute: the chosen host's cost (weighted uncached prompt tokens + in-flight work). */
    public static final String ATTR_COST = "cost";
    /** Decision attribute: estimated prompt tokens the chosen host has cached. */
    public static final String ATTR_MATCHED_TOKENS = "matched_tokens";
    /** Decision attribute: work units this request added to the chosen host's load. */
    public static final String ATTR_WORK = "work";

    static final double MAX_WEIGHT = 1000;
    static final int MAX_OUTPUT_TOKENS = 10_000_000;
    static final NumberField PREFILL_WEIGHT =
            NumberField.optional("prefillWeight", 1.0, 0, MAX_WEIGHT, "work per uncached prompt token");
    static final NumberField DECODE_WEIGHT = NumberField.optional(
            "decodeWeight",
            2.0,
            0,
            MAX_WEIGHT,
            "work per expected output token (prefill and decode weights may not both be 0)");
    static final IntField DEFAULT_OUTPUT_TOKENS = IntField.optional(
            "defaultOutputTokens",
            256,
            0,
            MAX_OUTPUT_TOKENS,
            "",
            "expected output of a request without max_tokens or max_completion_tokens");
    /** The lb_config fields this policy reads. */
    public static final List<ConfigField> FIELDS = ConfigField.join(
            RedisPolicyConfig.FIELDS_WITH_PREFIX_KEYS,
            PREFILL_WEIGHT,
            DECODE_WEIGHT,
            DEFAULT_OUTPUT_TOKENS,
            RedisPolicyConfig.ENABLE_DETAIL_LOG);
    /** Holders one block key keeps; the least recently seen go first. */
    static final int MAX_HOLDERS = 8;

    private final RedisTarget target;
    private final CacheAwareSelection.Settings settings;
    private final int defaultOutputTokens;

    public CacheAwarePolicy(ConfigView config) throws ConfigException {
        RedisPolicyConfig redis = RedisPolicyConfig.withPrefixKeys(config);
        this.target = redis.target();
        double prefillWeight = PREFILL_WEIGHT.read(config);
        double decodeWeight = DECODE_WEIGHT.read(config);
        if (prefillWeight == 0 && decodeWeight == 0) {
            throw new ConfigException(
                    config.fieldPath(DECODE_WEIGHT.name()),
                    "prefillWeight and decodeWeight cannot both be 0 (every host would cost the same)");
        }
        this.defaultOutputTokens = DEFAULT_OUTPUT_TOKENS.read(config);
        RedisPolicyConfig.ENABLE_DETAIL_LOG.read(config);
        this.settings = new CacheAwareSelection.Settings(redis.settings(), prefillWeight, decodeWeight, MAX_HOLDERS);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean readsBody() {
        return true;
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
                                demand(ctx.request()),
                                in.healthyHosts(),
                                in.unhealthyHosts(),
                                settings,
                                in.randomValue(),
                                in.leaseId()),
                        reply -> onReply(reply, in.healthy()))
                .withAttribute(Step.ATTR_POLICY, NAME)
                .withRelease(target, CacheAwareSelection.release(in.keys(), in.leaseId()));
    }

    /** The request's blocks, size and expected output; a request without blocks is weighed by its body size. */
    CacheAwareSelection.Demand demand(RequestInfo request) {
        if (request == null || !request.parsed()) {
            int bytes = request == null ? 0 : request.bodyBytes();
            return new CacheAwareSelection.Demand(
                    Collections.<String>emptyList(),
                    Collections.<Integer>emptyList(),
                    (bytes + 3) / 4,
                    defaultOutputTokens);
        }
        int output = request.maxTokens() >= 0 ? request.maxTokens() : defaultOutputTokens;
        return new CacheAwareSelection.Demand(
                request.prefixHashes(), request.prefixTokens(), request.estimatedPromptTokens(), output);
    }

    private Step onReply(RespValue reply, Set<String> healthy) {
        CacheAwareSelection selection = CacheAwareSelection.parse(reply);
        Step step = InflightRouter.stepFor(NAME, selection, healthy, true);
        if (selection == null || selection.full()) {
            return step;
        }
        return step.withAttribute(ATTR_MATCHED_TOKENS, Long.toString(selection.matchedTokens()))
                .withAttribute(ATTR_COST, Long.toString(selection.cost()))
                .withAttribute(ATTR_WORK, Long.toString(selection.work()));
    }
}
