package io.ailb.lb.policy.endpointmetrics;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.ConfigField;
import io.ailb.lb.config.ConfigView;
import io.ailb.lb.config.EnumField;
import io.ailb.lb.config.IntField;
import io.ailb.lb.config.StringField;
import io.ailb.lb.metrics.EngineMetrics;
import io.ailb.lb.metrics.MetricsStore;
import io.ailb.lb.model.Endpoint;
import io.ailb.lb.policy.FallbackReason;
import io.ailb.lb.policy.LoadBalancingPolicy;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.policy.ScrapeRequest;
import io.ailb.lb.policy.Step;
import io.ailb.lb.policy.ratelimit.ChoiceWindow;
import io.ailb.lb.request.RequestInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * {@code endpoint_metrics} (aliases {@code metrics_based}, and {@code least_busy}, which Higress dropped): chooses by the
 * engines' own load metrics, in this VM, without Redis.
 *
 * <p>Metrics come from the gateway's host info when it has them, else from this policy's own scrapes of
 * {@code metricsPath} ({@link #onTick}). Unlike the Go plugin, a missing metric family only removes that criterion.
 */
public final class EndpointMetricsPolicy implements LoadBalancingPolicy {
    /** Waiting requests below which a host counts as not queueing (the inference-extension's LoRA threshold). */
    static final double QUEUE_THRESHOLD = 50;

    static final long MAX_TICK_MILLIS = 1000;
    static final long MAX_SCRAPE_TIMEOUT_MILLIS = 3000;
    private static final String METRIC_POLICY_DEFAULT = "default";
    private static final String METRIC_POLICY_LEAST = "least";
    private static final String METRIC_POLICY_MOST = "most";

    static final EnumField METRIC_POLICY = EnumField.optional(
            "metric_policy",
            METRIC_POLICY_DEFAULT,
            "default: short queue, LoRA affinity, free KV cache (vLLM and SGLang names); least or most: on "
                    + "target_metric",
            METRIC_POLICY_DEFAULT,
            METRIC_POLICY_LEAST,
            METRIC_POLICY_MOST);
    static final StringField TARGET_METRIC = StringField.optional(
            "target_metric",
            "",
            "a Prometheus gauge, e.g. vllm:num_requests_waiting; required when metric_policy is least or most");
    static final IntField METRICS_REFRESH_INTERVAL =
            IntField.optional("metricsRefreshInterval", 5000, 100, 3_600_000, "ms", "scrape interval");
    static final IntField UNHEALTHY_THRESHOLD = IntField.optional(
            "unhealthyThreshold", 3, 1, 1000, "", "failed scrapes in a row before an instance is skipped");
    /** vLLM's and SGLang's metrics pages are 10-300 KiB; a bigger answer is not parsed (guest memory stays bounded). */
    static final IntField METRICS_MAX_BYTES = IntField.optional(
            "metricsMaxBytes",
            4 << 20,
            4096,
            64 << 20,
            "bytes",
            "longest metrics page read; a longer one counts as a failed scrape");
    /** The lb_config fields this policy reads. */
    public static final List<ConfigField> FIELDS = ConfigField.list(
            METRIC_POLICY,
            TARGET_METRIC,
            ChoiceWindow.RATE_LIMIT,
            MetricsPath.FIELD,
            METRICS_REFRESH_INTERVAL,
            METRICS_MAX_BYTES,
            UNHEALTHY_THRESHOLD);

    private enum Mode {
        DEFAULT,
        LEAST,
        MOST
    }

    /** One candidate host and its metrics. */
    private static final class Pod {
        final String host;
        final EngineMetrics metrics;

        Pod(String host, EngineMetrics metrics) {
            this.host = host;
            this.metrics = metrics;
        }
    }

    /** The last exposition text seen for a host and its parse. */
    private static final class Parsed {
        final String text;
        final EngineMetrics metrics;

        Parsed(String text, EngineMetrics metrics) {
            this.text = text;
            this.metrics = metrics;
        }
    }

    private final String name;
    private final Mode mode;
    private final String targetMetric;
    private final double rateLimit;
    private final String metricsPath;
    private final long refreshMillis;
    private final int scrapeTimeoutMillis;
    private final int metricsMaxBytes;
    private final MetricsStore store;
    private final ChoiceWindow window = new ChoiceWindow();
    private Map<String, Parsed> inline = new HashMap<>();

    public EndpointMetricsPolicy(String name, ConfigView config) throws ConfigException {
        this.name = name;
        String metricPolicy = METRIC_POLICY.read(config);
        this.mode = mode(metricPolicy);
        this.targetMetric = TARGET_METRIC.read(config);
        if (mode != Mode.DEFAULT && targetMetric.isEmpty()) {
            throw new ConfigException(
                    config.fieldPath(TARGET_METRIC.name()), "is required when metric_policy is " + metricPolicy);
        }
        this.rateLimit = ChoiceWindow.RATE_LIMIT.read(config);
        this.metricsPath = MetricsPath.read(config);
        this.metricsMaxBytes = METRICS_MAX_BYTES.read(config);
        this.refreshMillis = METRICS_REFRESH_INTERVAL.read(config);
        int threshold = UNHEALTHY_THRESHOLD.read(config);
        this.scrapeTimeoutMillis = (int) Math.min(refreshMillis, MAX_SCRAPE_TIMEOUT_MILLIS);
        this.store = new MetricsStore(
                refreshMillis, scrapeTimeoutMillis, threshold, targetMetric.isEmpty() ? null : targetMetric);
    }

    /** {@code metricPolicy} is one of METRIC_POLICY's values. */
    private static Mode mode(String metricPolicy) {
        if (metricPolicy.equals(METRIC_POLICY_LEAST)) {
            return Mode.LEAST;
        }
        return metricPolicy.equals(METRIC_POLICY_MOST) ? Mode.MOST : Mode.DEFAULT;
    }

    @Override
    public String name() {
        return name;
    }

    /** Only the default policy uses the body (the model, for LoRA affinity). */
    @Override
    public boolean readsBody() {
        return mode == Mode.DEFAULT;
    }

    /** The model is all the default policy reads; the messages are skipped unread. */
    @Override
    public boolean readsPrompt() {
        return false;
    }

    @Override
    public long tickPeriodMillis() {
        return Math.min(refreshMillis, MAX_TICK_MILLIS);
    }

    @Override
    public List<ScrapeRequest> onTick(long nowMillis) {
        List<ScrapeRequest> out = new ArrayList<>();
        for (MetricsStore.Due due : store.due(nowMillis)) {
            out.add(new ScrapeRequest(
                    due.clusterName(), due.host(), metricsPath, scrapeTimeoutMillis, metricsMaxBytes));
        }
        return out;
    }

    @Override
    public void onScrapeResult(String host, int httpStatus, String body, long nowMillis) {
        store.onResult(host, httpStatus, body, nowMillis);
    }

    @Override
    public Step select(RequestContext ctx) {
        if (ctx.healthy().isEmpty()) {
            return attributed(Step.fallback(FallbackReason.NO_HEALTHY_HOST));
        }
        List<Pod> pods = pods(ctx);
        if (pods.isEmpty()) {
            return attributed(Step.fallback(FallbackReason.NO_METRICS));
        }
        List<Pod> survivors = mode == Mode.DEFAULT ? decisionTree(pods, model(ctx)) : byTarget(pods);
        if (survivors.isEmpty()) {
            return attributed(Step.fallback(FallbackReason.NO_METRICS));
        }
        String host = survivors.get(ctx.random().nextInt(survivors.size())).host;
        host = applyRateLimit(host, pods, ctx);
        window.add(host);
        return attributed(Step.route(host));
    }

    private Step attributed(Step step) {
        return step.withAttribute(Step.ATTR_POLICY, name);
    }

    /** Healthy hosts with usable metrics; hosts without gateway metrics are remembered for scraping. */
    private List<Pod> pods(RequestContext ctx) {
        String cluster = ctx.clusterName() == null ? "" : ctx.clusterName();
        Map<String, Parsed> nextInline = new HashMap<>();
        List<Pod> pods = new ArrayList<>();
        for (Endpoint endpoint : ctx.healthy()) {
            String host = endpoint.address();
            String text = endpoint.metricsText();
            EngineMetrics metrics;
            if (text != null && !text.isEmpty()) {
                Parsed parsed = inline.get(host);
                if (parsed == null || !parsed.text.equals(text)) {
                    parsed = new Parsed(text, EngineMetrics.parse(text, targetMetric));
                }
                nextInline.put(host, parsed);
                metrics = parsed.metrics;
            } else {
                store.saw(cluster, host, ctx.nowMillis());
                metrics = store.metrics(host);
            }
            if (metrics != null && !metrics.isEmpty()) {
                pods.add(new Pod(host, metrics));
            }
        }
        // Only hosts of the latest request keep a cached parse: memory follows the cluster size.
        inline = nextInline;
        return pods;
    }

    private static String model(RequestContext ctx) {
        RequestInfo request = ctx.request();
        return request != null && request.parsed() ? request.model() : null;
    }

    /**
     * The gateway-api-inference-extension decision tree: low queue → LoRA affinity (or can load the adapter) → least
     * queueing → least KV cache; under queueing → least queueing → cheap LoRA → least KV cache.
     */
    private static List<Pod> decisionTree(List<Pod> pods, String model) {
        List<Pod> lowQueue = lowQueue(pods);
        if (!lowQueue.isEmpty()) {
            List<Pod> affine = loraAffinity(lowQueue, model);
            List<Pod> next = !affine.isEmpty() ? affine : orElse(canLoadAdapter(lowQueue), lowQueue);
            return leastKvCache(leastQueueing(next));
        }
        List<Pod> queued = leastQueueing(pods);
        return leastKvCache(orElse(cheapLora(queued, model), queued));
    }

    /** Hosts with fewer than 50 waiting; everyone when no host reports its queue. */
    private static List<Pod> lowQueue(List<Pod> pods) {
        if (!anyKnown(pods, p -> p.metrics.waiting())) {
            return pods;
        }
        List<Pod> out = new ArrayList<>();
        for (Pod pod : pods) {
            if (pod.metrics.waiting() < QUEUE_THRESHOLD) {
                out.add(pod);
            }
        }
        return out;
    }

    /** Hosts that already run the requested adapter. */
    private static List<Pod> loraAffinity(List<Pod> pods, String model) {
        List<Pod> out = new ArrayList<>();
        if (model == null) {
            return out;
        }
        for (Pod pod : pods) {
            if (pod.metrics.activeAdapters().contains(model)) {
                out.add(pod);
            }
        }
        return out;
    }

    /** Hosts with a free adapter slot; a host that does not report LoRA state is assumed to have one. */
    private static List<Pod> canLoadAdapter(List<Pod> pods) {
        List<Pod> out = new ArrayList<>();
        for (Pod pod : pods) {
            EngineMetrics m = pod.metrics;
            if (!m.loraKnown() || m.maxAdapters() < 0 || m.activeAdapters().size() < m.maxAdapters()) {
                out.add(pod);
            }
        }
        return out;
    }

    private static List<Pod> cheapLora(List<Pod> pods, String model) {
        List<Pod> out = new ArrayList<>();
        List<Pod> affine = loraAffinity(pods, model);
        List<Pod> free = canLoadAdapter(pods);
        for (Pod pod : pods) {
            if (affine.contains(pod) || free.contains(pod)) {
                out.add(pod);
            }
        }
        return out;
    }

    private static List<Pod> leastQueueing(List<Pod> pods) {
        return band(pods, p -> p.metrics.waiting(), true);
    }

    private static List<Pod> leastKvCache(List<Pod> pods) {
        return band(pods, p -> p.metrics.kvCacheUsage(), true);
    }

    /** least/most: the band on {@code target_metric}; hosts without it drop out. */
    private List<Pod> byTarget(List<Pod> pods) {
        List<Pod> known = new ArrayList<>();
        for (Pod pod : pods) {
            if (!Double.isNaN(pod.metrics.value(targetMetric))) {
                known.add(pod);
            }
        }
        return band(known, p -> p.metrics.value(targetMetric), mode == Mode.LEAST);
    }

    /**
     * Hosts within {@code (max−min)/n} of the best value: {@code [min, min+(max−min)/n]} for least,
     * {@code [max−(max−min)/n, max]} for most. Hosts with an unknown value drop out unless no host knows it, in which
     * case the criterion is skipped.
     */
    private static List<Pod> band(List<Pod> pods, ToDoubleFunction<Pod> metric, boolean least) {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (Pod pod : pods) {
            double v = metric.applyAsDouble(pod);
            if (!Double.isNaN(v)) {
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
        }
        if (min > max) {
            return pods;
        }
        double width = max == min ? 0 : (max - min) / pods.size();
        List<Pod> out = new ArrayList<>();
        for (Pod pod : pods) {
            double v = metric.applyAsDouble(pod);
            if (!Double.isNaN(v) && (least ? v <= min + width : v >= max - width)) {
                out.add(pod);
            }
        }
        return out;
    }

    private static boolean anyKnown(List<Pod> pods, ToDoubleFunction<Pod> metric) {
        for (Pod pod : pods) {
            if (!Double.isNaN(metric.applyAsDouble(pod))) {
                return true;
            }
        }
        return false;
    }

    private static List<Pod> orElse(List<Pod> preferred, List<Pod> alternative) {
        return preferred.isEmpty() ? alternative : preferred;
    }

    /** Past its {@code rate_limit} share, a host yields to another (preferably one under its share). */
    private String applyRateLimit(String host, List<Pod> pods, RequestContext ctx) {
        if (window.share(host) <= rateLimit || pods.size() < 2) {
            return host;
        }
        List<String> others = new ArrayList<>();
        List<String> underShare = new ArrayList<>();
        for (Pod pod : pods) {
            if (!pod.host.equals(host)) {
                others.add(pod.host);
                if (window.share(pod.host) <= rateLimit) {
                    underShare.add(pod.host);
                }
            }
        }
        List<String> choices = underShare.isEmpty() ? others : underShare;
        return choices.get(ctx.random().nextInt(choices.size()));
    }
}
