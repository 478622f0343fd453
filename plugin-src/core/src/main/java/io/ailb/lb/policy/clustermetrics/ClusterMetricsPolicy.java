package io.ailb.lb.policy.clustermetrics;

import io.ailb.codec.resp.RespValue;
import io.ailb.lb.config.BoolField;
import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.ConfigField;
import io.ailb.lb.config.ConfigView;
import io.ailb.lb.config.EnumField;
import io.ailb.lb.config.IntField;
import io.ailb.lb.config.NumberField;
import io.ailb.lb.config.StringField;
import io.ailb.lb.config.StringListField;
import io.ailb.lb.policy.LoadBalancingPolicy;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.policy.ResponseObserver;
import io.ailb.lb.policy.SharedState;
import io.ailb.lb.policy.Step;
import io.ailb.lb.policy.clusterheader.HeaderName;
import io.ailb.lb.policy.inflight.InflightSelection;
import io.ailb.lb.policy.inflight.RedisPolicyConfig;
import io.ailb.lb.policy.ratelimit.ChoiceWindow;
import io.ailb.lb.redis.RedisCommand;
import io.ailb.lb.redis.RedisKeys;
import io.ailb.lb.redis.RedisTarget;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Chooses a service (an Envoy cluster) for each request from what this VM measured of the services' responses, and
 * writes it into {@code cluster_header}. Modes, as in the Go plugin: {@code LeastBusy} (fewest in flight),
 * {@code LeastFirstTokenLatency} and {@code LeastTotalLatency} (lowest mean of the last {@code queue_size} samples;
 * an unmeasured service counts 0 and so gets tried), {@code AdaptiveScore} (power of {@code p2c_choices} choices on
 * a score of latency EWMAs, in-flight, errors and cooldown), {@code Random}.
 *
 * <p>Where it differs from the Go plugin, on purpose: {@code rate_limit} counts the last 100 choices, not the VM's
 * lifetime; a failure is a missing status, a 5xx or a 429 (a client's 4xx says nothing about the service); a failed
 * request that never produced a body is punished on first-token latency too, so a service that resets at once cannot
 * look fastest; with global in-flight counts the score multiplies the gateways' total in flight once (the Go script
 * multiplied a score already holding the local count).
 */
public final class ClusterMetricsPolicy implements LoadBalancingPolicy {
    public static final String NAME = "cluster_metrics";

    enum Mode {
        LEAST_BUSY("LeastBusy"),
        LEAST_FIRST_TOKEN_LATENCY("LeastFirstTokenLatency"),
        LEAST_TOTAL_LATENCY("LeastTotalLatency"),
        ADAPTIVE_SCORE("AdaptiveScore"),
        RANDOM("Random");

        final String configName;

        Mode(String configName) {
            this.configName = configName;
        }

        static Mode of(String configName) {
            for (Mode mode : values()) {
                if (mode.configName.equals(configName)) {
                    return mode;
                }
            }
            throw new IllegalArgumentException(configName);
        }
    }

    private static final String REQUIRES_GLOBAL = "global_inflight_enabled is true";
    static final long SHARE_PERIOD_MILLIS = 1000;

    static final EnumField MODE = EnumField.optional(
            "mode",
            "Random",
            "cluster_metrics: how a service is chosen; Random is what the Go plugin does with no or an unknown mode",
            "LeastBusy",
            "LeastFirstTokenLatency",
            "LeastTotalLatency",
            "AdaptiveScore",
            "Random");
    static final StringListField SERVICE_LIST = StringListField.required(
            "service_list", "cluster_metrics: the Envoy cluster names to choose from, e.g. outbound|80||qwen-a.dns");
    static final IntField QUEUE_SIZE = IntField.optional(
            "queue_size",
            100,
            0,
            100_000,
            "",
            "cluster_metrics: latency samples kept per service for the Least*Latency means; 0 = 100 (as in Higress)");
    static final NumberField EWMA_BETA = NumberField.optional(
            "ewma_beta", 0.5, 0, 1, "AdaptiveScore: the weight of the old value in the latency EWMAs");
    static final IntField P2C_CHOICES = IntField.optional(
            "p2c_choices",
            2,
            0,
            1000,
            "",
            "AdaptiveScore: services drawn at random and compared per request; 0 = 2 (as in Higress)");
    static final NumberField TTFT_WEIGHT = NumberField.optional(
            "ttft_weight", 0.7, 0, 1e6, "AdaptiveScore: weight of the first-token latency (not 0 with the other)");
    static final NumberField TOTAL_LATENCY_WEIGHT =
            NumberField.optional("total_latency_weight", 0.3, 0, 1e6, "AdaptiveScore: weight of the total latency");
    static final NumberField ERROR_PENALTY = NumberField.optional(
            "error_penalty", 3.0, 0, 1e6, "AdaptiveScore: score x (1 + error_penalty x recent error rate)");
    static final IntField FAILURE_COOLDOWN = IntField.optional(
            "failure_cooldown_ms",
            30_000,
            0,
            86_400_000,
            "ms",
            "AdaptiveScore: how long a failed service is avoided; 0 = 30000 (as in Higress)");
    static final StringField METRICS_MISSING_POLICY = StringField.optional(
            "metrics_missing_policy",
            "least_busy",
            "AdaptiveScore: a service without latency samples is scored by its in-flight count (least_busy, the only "
                    + "behaviour; other values mean the same, as in Higress)");
    static final BoolField GLOBAL_INFLIGHT = BoolField.optional(
            "global_inflight_enabled",
            false,
            "AdaptiveScore: count requests in flight per service across gateways in Redis (one EVALSHA per request)");
    static final StringField GLOBAL_KEY_PREFIX = StringField.optional(
            "global_inflight_key_prefix",
            "higress:adaptive_score_inflight",
            "AdaptiveScore: Redis key prefix of the shared in-flight counts");
    static final IntField GLOBAL_TIMEOUT = IntField.optional(
            "global_inflight_timeout",
            3000,
            0,
            60_000,
            "ms",
            "AdaptiveScore: Redis timeout; past it the local score decides; 0 = 3000 (as in Higress)");
    static final IntField GLOBAL_KEY_TTL = IntField.optional(
            "global_inflight_key_ttl",
            1800,
            0,
            31_536_000,
            "s",
            "AdaptiveScore: TTL of the shared in-flight keys (at least leaseTTL); 0 = 1800 (as in Higress)");

    public static final List<ConfigField> FIELDS = ConfigField.list(
            MODE,
            SERVICE_LIST,
            HeaderName.CLUSTER_HEADER,
            ChoiceWindow.RATE_LIMIT,
            QUEUE_SIZE,
            EWMA_BETA,
            P2C_CHOICES,
            TTFT_WEIGHT,
            TOTAL_LATENCY_WEIGHT,
            ERROR_PENALTY,
            FAILURE_COOLDOWN,
            METRICS_MISSING_POLICY,
            GLOBAL_INFLIGHT,
            RedisTarget.SERVICE_FQDN.requiredWhen(REQUIRES_GLOBAL),
            RedisTarget.SERVICE_PORT.requiredWhen(REQUIRES_GLOBAL),
            RedisTarget.USERNAME,
            RedisTarget.PASSWORD,
            RedisTarget.DATABASE,
            GLOBAL_KEY_PREFIX,
            GLOBAL_TIMEOUT,
            GLOBAL_KEY_TTL,
            RedisPolicyConfig.LEASE_TTL);

    private final Mode mode;
    private final List<String> services;
    private final String clusterHeader;
    private final double rateLimit;
    private final int p2cChoices;
    private final double ttftWeight;
    private final double totalWeight;
    private final double errorPenalty;
    private final long cooldownMillis;
    /** Null unless global_inflight_enabled (AdaptiveScore only). */
    private final RedisTarget redis;

    private final String keyPrefix;
    private final int keyTtlSeconds;
    private final int leaseTtlSeconds;
    private final Map<String, ServiceStats> stats = new HashMap<>();
    private final ChoiceWindow window = new ChoiceWindow();
    private final SharedStats shared;

    public ClusterMetricsPolicy(ConfigView config) throws ConfigException {
        mode = Mode.of(MODE.read(config));
        services = Collections.unmodifiableList(new ArrayList<>(new LinkedHashSet<>(SERVICE_LIST.read(config))));
        clusterHeader = HeaderName.read(HeaderName.CLUSTER_HEADER, config);
        rateLimit = ChoiceWindow.RATE_LIMIT.read(config);
        int queueSize = orDefault(QUEUE_SIZE.read(config), QUEUE_SIZE);
        double ewmaBeta = EWMA_BETA.read(config);
        p2cChoices = orDefault(P2C_CHOICES.read(config), P2C_CHOICES);
        ttftWeight = TTFT_WEIGHT.read(config);
        totalWeight = TOTAL_LATENCY_WEIGHT.read(config);
        if (ttftWeight == 0 && totalWeight == 0) {
            throw new ConfigException(
                    config.fieldPath(TTFT_WEIGHT.name()),
                    "0",
                    "and total_latency_weight are both 0; at least one latency must count");
        }
        errorPenalty = ERROR_PENALTY.read(config);
        cooldownMillis = orDefault(FAILURE_COOLDOWN.read(config), FAILURE_COOLDOWN);
        METRICS_MISSING_POLICY.read(config);
        boolean global = GLOBAL_INFLIGHT.read(config);
        keyPrefix = GLOBAL_KEY_PREFIX.read(config);
        int timeout = orDefault(GLOBAL_TIMEOUT.read(config), GLOBAL_TIMEOUT);
        leaseTtlSeconds = RedisPolicyConfig.LEASE_TTL.read(config);
        keyTtlSeconds = Math.max(orDefault(GLOBAL_KEY_TTL.read(config), GLOBAL_KEY_TTL), leaseTtlSeconds);
        boolean redisNamed = config.has(RedisTarget.SERVICE_FQDN.name()) || config.has(RedisTarget.SERVICE_PORT.name());
        RedisTarget target = null;
        if (global || redisNamed) {
            // Read when present even if unused, so a typo in them is refused now rather than when switched on.
            target = new RedisTarget(
                    RedisTarget.SERVICE_FQDN.read(config),
                    RedisTarget.SERVICE_PORT.read(config),
                    RedisTarget.USERNAME.read(config),
                    RedisTarget.PASSWORD.read(config),
                    timeout,
                    RedisTarget.DATABASE.read(config));
        }
        redis = global && mode == Mode.ADAPTIVE_SCORE ? target : null;
        for (String service : services) {
            stats.put(service, new ServiceStats(queueSize, ewmaBeta));
        }
        // VMs with the same lb_config measure the same services: they pool under one key.
        shared = new SharedStats(
                "ailb.cluster_metrics."
                        + Integer.toHexString(config.json().toJson().hashCode()),
                services,
                stats);
    }

    /** Pools measurements with the gateway's other VMs once a second (see {@link SharedStats}). */
    @Override
    public long tickPeriodMillis() {
        return SHARE_PERIOD_MILLIS;
    }

    @Override
    public void shareState(SharedState state, long nowMillis) {
        shared.exchange(state, nowMillis, cooldownMillis);
    }

    /** 0 means the default, as in the Go plugin. */
    private static int orDefault(int value, IntField field) {
        return value == 0 ? (Integer) field.defaultValue() : value;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean readsBody() {
        return false;
    }

    @Override
    public List<RedisTarget> redisTargets() {
        return redis == null ? Collections.emptyList() : Collections.singletonList(redis);
    }

    @Override
    public Step select(RequestContext ctx) {
        long now = ctx.nowMillis();
        switch (mode) {
            case LEAST_BUSY:
            case LEAST_FIRST_TOKEN_LATENCY:
            case LEAST_TOTAL_LATENCY:
                return decided(leastOf(ctx), now);
            case ADAPTIVE_SCORE:
                return adaptive(ctx, now);
            default:
                return decided(services.get(ctx.random().nextInt(services.size())), now);
        }
    }

    /**
     * The Go plugin's pass: from a random candidate, each other service (in list order, from the candidate on) takes
     * over when the candidate is at its rate limit, or when it measures lower and is under the limit itself.
     */
    private String leastOf(RequestContext ctx) {
        int start = ctx.random().nextInt(services.size());
        String candidate = services.get(start);
        for (int i = 1; i < services.size(); i++) {
            String other = services.get((start + i) % services.size());
            if (!underLimit(candidate)) {
                candidate = other;
            } else if (measure(other) < measure(candidate) && underLimit(other)) {
                candidate = other;
            }
        }
        return candidate;
    }

    /**
     * Below its share of the recent choices. rate_limit 1 limits nothing: the Go plugin's {@code share >= 1} test
     * counted a service that had taken every recent request as limited, and so moved traffic off the only good one.
     */
    private boolean underLimit(String service) {
        return rateLimit >= 1 || window.share(service) < rateLimit;
    }

    private double measure(String service) {
        ServiceStats s = stats.get(service);
        switch (mode) {
            case LEAST_FIRST_TOKEN_LATENCY:
                return s.expectedFirstToken();
            case LEAST_TOTAL_LATENCY:
                return s.expectedTotal();
            default:
                return s.pooledInflight();
        }
    }

    private Step adaptive(RequestContext ctx, long now) {
        List<String> sample = sample(ctx, eligible(now));
        if (redis == null || ctx.routeName() == null) {
            return decided(lowestLocalScore(sample, now), now);
        }
        RedisKeys keys = RedisKeys.forServices(keyPrefix, ctx.routeName());
        String leaseId = InflightSelection.leaseId(ctx.random().nextLong());
        List<String> args = new ArrayList<>(4 + 3 * sample.size());
        args.add(Integer.toString(ctx.random().nextInt(InflightSelection.randomBound())));
        args.add(leaseId);
        args.add(Integer.toString(leaseTtlSeconds));
        args.add(Integer.toString(keyTtlSeconds));
        for (String service : sample) {
            ServiceStats s = stats.get(service);
            args.add(service);
            args.add(Double.toString(latencyAndErrorScore(s, now)));
            args.add(Integer.toString(s.coolingDown(now) ? s.consecutiveFailures + 1 : 0));
        }
        RedisCommand select = RedisCommand.script(
                ClusterMetricsScripts.SELECT, List.of(keys.inflight(), keys.leases(), keys.leaseHosts()), args);
        Step local = decided(lowestLocalScore(sample, now), now);
        return Step.redis(redis, select, reply -> fromGlobal(reply, sample, local, now))
                .withAttribute(Step.ATTR_POLICY, NAME)
                .withRelease(redis, InflightSelection.release(keys, leaseId))
                .orOnRedisFailure(local);
    }

    /** The script's {service, count}; anything else (a service we did not send) keeps the local choice. */
    private Step fromGlobal(RespValue reply, List<String> sample, Step local, long now) {
        List<RespValue> parts = reply.elements();
        if (parts == null || parts.size() != 2) {
            return local;
        }
        String service = parts.get(0).asString();
        if (service == null || !sample.contains(service)) {
            return local;
        }
        return decided(service, now)
                .withAttribute(Step.ATTR_INFLIGHT, Long.toString(parts.get(1).asLong()));
    }

    /** Under the rate limit and not cooling down; every service when that leaves none. */
    private List<String> eligible(long now) {
        List<String> out = new ArrayList<>(services.size());
        for (String service : services) {
            if (underLimit(service) && !stats.get(service).coolingDown(now)) {
                out.add(service);
            }
        }
        return out.isEmpty() ? services : out;
    }

    /** {@code p2c_choices} distinct services drawn at random (all of them when there are no more). */
    private List<String> sample(RequestContext ctx, List<String> from) {
        if (from.size() <= p2cChoices) {
            return from;
        }
        List<String> pool = new ArrayList<>(from);
        List<String> out = new ArrayList<>(p2cChoices);
        for (int i = 0; i < p2cChoices; i++) {
            out.add(pool.remove(ctx.random().nextInt(pool.size())));
        }
        return out;
    }

    private String lowestLocalScore(List<String> candidates, long now) {
        String best = null;
        double bestScore = Double.MAX_VALUE;
        for (String service : candidates) {
            ServiceStats s = stats.get(service);
            double load = s.pooledInflight() + 1 + (s.coolingDown(now) ? s.consecutiveFailures + 1 : 0);
            double score = latencyAndErrorScore(s, now) * load;
            if (best == null || score < bestScore) {
                best = service;
                bestScore = score;
            }
        }
        return best;
    }

    /**
     * The score without the in-flight factor: ttft_weight·√(EWMA TTFT + 1) + total_latency_weight·√(EWMA total + 1),
     * times 1 + error_penalty·error rate; 1 times the error factor before any latency sample (least busy decides).
     * A service past its cooldown that has not worked since its failure is scored as unmeasured while nothing is in
     * flight to it: one request probes it, and its success restarts the EWMAs; without the probe, the punished samples
     * would keep it from ever being chosen again under light traffic.
     */
    double latencyAndErrorScore(ServiceStats s, long now) {
        double latency = 1;
        boolean probe = s.awaitingProbe && !s.coolingDown(now) && s.inflight == 0;
        if (s.hasPooledLatency() && !probe) {
            latency = ttftWeight * Math.sqrt(s.pooledFirstTokenEwma() + 1)
                    + totalWeight * Math.sqrt(s.pooledTotalEwma() + 1);
        }
        return latency * (1 + errorPenalty * s.pooledErrorRate(now, cooldownMillis));
    }

    private Step decided(String service, long startMillis) {
        return Step.toCluster(clusterHeader, service)
                .withAttribute(Step.ATTR_POLICY, NAME)
                .withResponseObserver(new Outcome(service, startMillis));
    }

    /** For tests: the statistics of a service. */
    ServiceStats stats(String service) {
        return stats.get(service);
    }

    /** A failure says something about the service: no response, a 5xx, or a 429 (overloaded). */
    static boolean failed(int status) {
        return status == 0 || status >= 500 || status == 429;
    }

    /**
     * A failed request's latency: at least the largest mean any service has, doubled, so a failing service ranks behind
     * every working one (the Go plugin's punishment).
     */
    private double punished(double millis, boolean firstToken) {
        double worst = millis;
        for (ServiceStats s : stats.values()) {
            worst = Math.max(worst, firstToken ? s.pooledMeanFirstToken() : s.pooledMeanTotal());
        }
        return 2 * worst;
    }

    /** One request's measurements; see {@link ResponseObserver} for the order of calls. */
    private final class Outcome implements ResponseObserver {
        private final String service;
        private final long startMillis;
        private int status;
        private boolean firstTokenRecorded;
        /** The requests in flight to the service (every VM's) when this one was sent there. */
        private int load;

        Outcome(String service, long startMillis) {
            this.service = service;
            this.startMillis = startMillis;
        }

        @Override
        public void onApplied(long nowMillis) {
            load = stats.get(service).pooledInflight();
            stats.get(service).inflight++;
            window.add(service);
        }

        @Override
        public void onResponseHeaders(int responseStatus, long nowMillis) {
            status = responseStatus;
        }

        @Override
        public void onFirstResponseBody(long nowMillis) {
            recordFirstToken(nowMillis);
        }

        @Override
        public void onStreamEnd(long nowMillis) {
            boolean failed = failed(status);
            if (!firstTokenRecorded && failed) {
                recordFirstToken(nowMillis);
            }
            double millis = Math.max(0, nowMillis - startMillis);
            ServiceStats s = stats.get(service);
            s.recordTotal(failed ? punished(millis, false) : millis, load);
            s.recordOutcome(failed, nowMillis, cooldownMillis);
            s.inflight--;
        }

        private void recordFirstToken(long nowMillis) {
            firstTokenRecorded = true;
            double millis = Math.max(0, nowMillis - startMillis);
            stats.get(service).recordFirstToken(failed(status) ? punished(millis, true) : millis, load);
        }
    }
}
