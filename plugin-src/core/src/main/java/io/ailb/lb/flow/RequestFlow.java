package io.ailb.lb.flow;

import io.ailb.codec.resp.RespValue;
import io.ailb.lb.policy.FallbackReason;
import io.ailb.lb.policy.LoadBalancingPolicy;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.policy.ResponseObserver;
import io.ailb.lb.policy.Step;
import io.ailb.lb.redis.RedisCall;
import io.ailb.lb.redis.RedisCommand;
import io.ailb.lb.redis.RedisTarget;
import io.ailb.lb.request.RequestInfo;
import io.ailb.lb.util.Decimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The decision for one request, from the policy's first {@link Step} to the end of the stream.
 *
 * <p>Guarantees, whatever the order of events: the request is never left held (every path that held it resumes it,
 * answers it locally, or the stream is gone); a failing policy, Redis error or refused override leaves the choice to
 * the cluster's load balancer (or the rule's fallback policy); every release command a Step carries is sent exactly
 * once — when the stream ends, or at once for a reply that arrives after the stream is gone.
 *
 * <p>Releases and the decision call: a REDIS Step's own releases cover the uncertain outcome of its call (the
 * in-flight policies release by lease, which is harmless when the script did not count anything). So they are kept
 * whatever the call's outcome — reply, error reply, timeout or reset — with one exception: a call the host could not
 * send at all has no outcome, and its Step's releases are dropped. And releases are never sent while a decision call is
 * in flight: a stream that ends meanwhile sends them once the call has its outcome, so a release cannot overtake the
 * increment it gives back.
 */
public final class RequestFlow {
    /** Attribute naming the chosen host, as in the seed plugin's access log. */
    public static final String ATTR_SELECTED_HOST = "selected_host";
    /** Attribute naming the chosen cluster (lb_type cluster). */
    public static final String ATTR_SELECTED_CLUSTER = "selected_cluster";
    /** Attribute naming why the cluster's load balancer decided. */
    public static final String ATTR_FALLBACK = "fallback";

    private final RoutePolicy route;
    private final FlowHost host;
    /** When the request reached the plugin, for the decision time. */
    private final long arrivedAtMillis;

    private final List<RedisCall> unsentReleases = new ArrayList<>();
    /** The routed Step's calls for the first response byte; emptied when sent. */
    private List<RedisCall> firstResponseCalls = new ArrayList<>();
    /** The applied Step's observer; null when none, or once told the stream ended. */
    private ResponseObserver observer;
    /** CLUSTER: the cluster written into the header; null otherwise. */
    private String chosenCluster;

    private boolean firstResponseBodySeen;

    private RequestContext context;
    private boolean fallbackPolicyUsed;
    private boolean waitingForRedis;
    private boolean ended;
    /** The backend this request counts in flight on, until the stream ends. */
    private BackendMetrics inflightOn;

    /** A request that reaches the plugin now. */
    public RequestFlow(RoutePolicy route, FlowHost host) {
        this(route, host, host.nowMillis());
    }

    /** A request whose headers reached the plugin at {@code arrivedAtMillis} (its body may have come later). */
    public RequestFlow(RoutePolicy route, FlowHost host, long arrivedAtMillis) {
        this.route = route;
        this.host = host;
        this.arrivedAtMillis = arrivedAtMillis;
    }

    /**
     * Runs the rule's policy for {@code ctx}. True: decided now, the request may go on. False: waiting for Redis; the
     * host must hold the request until {@link FlowHost#resume} or {@link FlowHost#localReply}.
     */
    public boolean start(RequestContext ctx) {
        context = ctx;
        return apply(select(route.primary()), false);
    }

    /** True while a Redis reply is pending for this request. */
    public boolean waitingForRedis() {
        return waitingForRedis;
    }

    /**
     * The stream is over (completed, answered locally, reset): send what must be released — at once, or when the
     * pending decision call has its outcome. Idempotent.
     */
    public void onStreamEnd() {
        ended = true;
        leaveBackend();
        sendReleasesIfDone();
        if (observer != null) {
            ResponseObserver told = observer;
            observer = null;
            told.onStreamEnd(host.nowMillis());
        }
    }

    /** True when {@link #onResponseHeaders} has a use: a policy follows the outcome, or a cluster header was written. */
    public boolean wantsResponseHeaders() {
        return !ended && (observer != null || chosenCluster != null);
    }

    /**
     * The response headers arrived: {@code status} is {@code :status} (0 when absent or not a number),
     * {@code servedCluster} the {@code cluster_name} the request went to (null when unknown). A CLUSTER decision whose
     * request went elsewhere means the route ignores the header: counted, and logged once per rule.
     */
    public void onResponseHeaders(int status, String servedCluster) {
        if (ended) {
            return;
        }
        if (chosenCluster != null && servedCluster != null && !chosenCluster.equals(servedCluster)) {
            host.count(FlowMetrics.CLUSTER_HEADER_IGNORED);
            if (route.firstHeaderIgnored()) {
                host.warn("rule " + route.rulePath() + " wrote " + chosenCluster + " into its cluster header but the "
                        + "request went to " + servedCluster + ": the route does not select its cluster by the header; "
                        + "add the route.cluster_header patch (higress-config/cluster-metrics/README.md)");
            }
        }
        if (observer != null) {
            observer.onResponseHeaders(status, host.nowMillis());
        }
    }

    /**
     * The first byte of the response body arrived (the backend produced its first token): sends the routed Step's
     * first-response calls, once. Nothing for a request the plugin did not route or a stream already over (its
     * release covers them).
     */
    public void onFirstResponseBody() {
        if (ended || firstResponseBodySeen) {
            return;
        }
        firstResponseBodySeen = true;
        if (observer != null) {
            observer.onFirstResponseBody(host.nowMillis());
        }
        if (firstResponseCalls.isEmpty()) {
            return;
        }
        List<RedisCall> calls = firstResponseCalls;
        firstResponseCalls = new ArrayList<>();
        long nowMillis = host.nowMillis();
        for (RedisCall call : calls) {
            sendReportingFailures(call.sentAt(nowMillis), "first-response call");
        }
    }

    private Step select(LoadBalancingPolicy policy) {
        try {
            return policy.select(context);
        } catch (RuntimeException e) {
            host.warn("policy " + policy.name() + " failed: " + e);
            return Step.fallback(FallbackReason.INTERNAL_ERROR).withAttribute(Step.ATTR_POLICY, policy.name());
        }
    }

    /** Carries out one Step; {@code async} is true when the request is held and must be resumed. */
    private boolean apply(Step step, boolean async) {
        unsentReleases.addAll(step.releases());
        if (step.kind() == Step.Kind.REDIS && !ended) {
            return sendDecisionCall(step, async);
        }
        sendReleasesIfDone();
        switch (step.kind()) {
            case REDIS:
                // The stream is gone: no decision is needed, so the call is not made.
                return true;
            case REJECT:
                reject(step);
                return true;
            case ROUTE:
                routeTo(step);
                break;
            case CLUSTER:
                writeCluster(step);
                break;
            default:
                if (tryFallbackPolicy(step)) {
                    return apply(select(route.fallback()), async);
                }
                leaveToCluster(step);
                break;
        }
        if (async && !ended) {
            host.resume();
        }
        return true;
    }

    private boolean sendDecisionCall(Step step, boolean async) {
        long sentAt = host.nowMillis();
        boolean sent = send(host, step.redisTarget(), step.redisCommand(), new RedisReplyHandler() {
            @Override
            public void onReply(RespValue reply) {
                waitingForRedis = false;
                host.record(FlowMetrics.REDIS_LATENCY_MS, host.nowMillis() - sentAt);
                if (reply.isError()) {
                    host.count(FlowMetrics.REDIS_ERRORS);
                    host.warn("redis error reply: " + reply.asString());
                    apply(redisFailure(step), true);
                    return;
                }
                apply(next(step, reply), true);
            }

            @Override
            public void onFailure(String reason) {
                waitingForRedis = false;
                host.count(FlowMetrics.REDIS_ERRORS);
                host.warn("redis call failed: " + reason);
                apply(redisFailure(step), true);
            }
        });
        if (!sent) {
            host.count(FlowMetrics.REDIS_ERRORS);
            // Nothing left the gateway: what this Step would release cannot have been taken.
            for (RedisCall release : step.releases()) {
                removeByIdentity(unsentReleases, release);
            }
            return apply(redisFailure(step), async);
        }
        waitingForRedis = true;
        return false;
    }

    private Step next(Step step, RespValue reply) {
        try {
            return step.onReply(reply);
        } catch (RuntimeException e) {
            host.warn("policy failed on redis reply " + reply + ": " + e);
            return step.onRedisFailure() != null
                    ? step.onRedisFailure()
                    : carrying(Step.fallback(FallbackReason.REDIS_BAD_REPLY), step);
        }
    }

    private static Step redisFailure(Step step) {
        return step.onRedisFailure() != null
                ? step.onRedisFailure()
                : carrying(Step.fallback(FallbackReason.REDIS_ERROR), step);
    }

    private boolean tryFallbackPolicy(Step step) {
        // No healthy host defeats every policy alike; a stream already gone needs no decision.
        if (fallbackPolicyUsed
                || route.fallback() == null
                || ended
                || step.reason() == FallbackReason.NO_HEALTHY_HOST) {
            return false;
        }
        fallbackPolicyUsed = true;
        host.count(FlowMetrics.fallback(step.reason()));
        host.count(FlowMetrics.FALLBACK_POLICY_USED);
        return true;
    }

    private void routeTo(Step step) {
        if (ended) {
            return;
        }
        Map<String, String> attributes = new LinkedHashMap<>(step.attributes());
        attributes.put(ATTR_SELECTED_HOST, step.host());
        String policy = policyName(step);
        if (host.overrideUpstream(step.host())) {
            host.count(FlowMetrics.routed(policy));
            countRouted(step);
            firstResponseCalls = new ArrayList<>(step.firstResponseCalls());
            observe(step);
        } else {
            host.count(FlowMetrics.OVERRIDE_FAILED);
            attributes.put(ATTR_FALLBACK, "override_failed");
        }
        if (step.prefixLength() != Step.NO_PREFIX_MATCH) {
            host.record(FlowMetrics.PREFIX_MATCH_DEPTH, step.prefixLength());
        }
        recordDecisionTime();
        host.decided(attributes);
    }

    private void writeCluster(Step step) {
        if (ended) {
            return;
        }
        Map<String, String> attributes = new LinkedHashMap<>(step.attributes());
        attributes.put(ATTR_SELECTED_CLUSTER, step.host());
        if (host.setRequestHeader(step.clusterHeader(), step.host())) {
            host.count(FlowMetrics.routed(policyName(step)));
            // The per-backend metrics are per service here: routed and in flight by cluster name.
            countRouted(step);
            chosenCluster = step.host();
            observe(step);
        } else {
            host.count(FlowMetrics.CLUSTER_HEADER_FAILED);
            attributes.put(ATTR_FALLBACK, "header_failed");
        }
        recordDecisionTime();
        host.decided(attributes);
    }

    private void observe(Step step) {
        observer = step.responseObserver();
        if (observer != null) {
            observer.onApplied(host.nowMillis());
        }
    }

    private void reject(Step step) {
        if (ended) {
            return;
        }
        host.count(FlowMetrics.rejected(policyName(step)));
        Map<String, String> attributes = new LinkedHashMap<>(step.attributes());
        attributes.put("rejected", Integer.toString(step.status()));
        recordDecisionTime();
        host.decided(attributes);
        host.localReply(step.status(), step.body());
    }

    private void leaveToCluster(Step step) {
        host.count(FlowMetrics.fallback(step.reason()));
        if (ended) {
            return;
        }
        Map<String, String> attributes = new LinkedHashMap<>(step.attributes());
        attributes.put(ATTR_FALLBACK, step.reason().name().toLowerCase());
        recordDecisionTime();
        host.decided(attributes);
    }

    /** Per-backend metrics of a request pinned to {@code step.host()}. */
    private void countRouted(Step step) {
        BackendMetrics backend = route.backendMetrics(step.host());
        host.count(backend.routed());
        host.addToGauge(backend.inflight(), 1);
        inflightOn = backend;
        long inflightGlobal = Decimal.nonNegative(step.attributes().get(Step.ATTR_INFLIGHT), 18);
        if (inflightGlobal >= 0) {
            host.setGauge(backend.inflightGlobal(), inflightGlobal);
        }
        RequestInfo request = context.request();
        if (step.prefixLength() != Step.NO_PREFIX_MATCH && request != null) {
            // Only a prefix-aware policy knows what the backend holds, so only its requests weigh the hit ratio.
            List<Integer> tokensAtBlockEnd = request.prefixTokens();
            int matchedBlocks = Math.min(step.prefixLength(), tokensAtBlockEnd.size());
            host.count(backend.promptTokens(), request.estimatedPromptTokens());
            host.count(backend.matchedTokens(), matchedBlocks > 0 ? tokensAtBlockEnd.get(matchedBlocks - 1) : 0);
        }
    }

    private void leaveBackend() {
        if (inflightOn != null) {
            host.addToGauge(inflightOn.inflight(), -1);
            inflightOn = null;
        }
    }

    private void recordDecisionTime() {
        host.record(FlowMetrics.DECISION_TIME_MS, Math.max(0, host.nowMillis() - arrivedAtMillis));
    }

    private String policyName(Step step) {
        String name = step.attributes().get(Step.ATTR_POLICY);
        return name != null ? name : route.primary().name();
    }

    private void sendReleasesIfDone() {
        if (!ended || waitingForRedis || unsentReleases.isEmpty()) {
            return;
        }
        List<RedisCall> releases = new ArrayList<>(unsentReleases);
        unsentReleases.clear();
        for (RedisCall release : releases) {
            if (sendReportingFailures(release, "release")) {
                host.count(FlowMetrics.RELEASES_SENT);
            }
        }
    }

    /** Sends a call whose reply only matters when it fails; true when it left the gateway. */
    private boolean sendReportingFailures(RedisCall call, String what) {
        boolean sent = send(host, call.target(), call.command(), new RedisReplyHandler() {
            @Override
            public void onReply(RespValue reply) {
                if (reply.isError()) {
                    host.count(FlowMetrics.REDIS_ERRORS);
                    host.warn(what + " " + call + " failed: " + reply.asString());
                }
            }

            @Override
            public void onFailure(String reason) {
                host.count(FlowMetrics.REDIS_ERRORS);
                host.warn(what + " " + call + " failed: " + reason);
            }
        });
        if (!sent) {
            host.count(FlowMetrics.REDIS_ERRORS);
            host.warn(what + " " + call + " could not be sent");
        }
        return sent;
    }

    /**
     * Sends a command; a script goes out as EVALSHA and is sent once more as EVAL when Redis does not know it yet
     * (after a restart or on a new server), so the script text crosses the network only when needed.
     */
    static boolean send(FlowHost host, RedisTarget target, RedisCommand command, RedisReplyHandler handler) {
        if (!command.isScript()) {
            return host.sendRedis(target, command.encode(), handler);
        }
        return host.sendRedis(target, command.encodeEvalSha(), new RedisReplyHandler() {
            @Override
            public void onReply(RespValue reply) {
                if (reply.isError() && "NOSCRIPT".equals(reply.errorCode())) {
                    if (!host.sendRedis(target, command.encodeEval(), handler)) {
                        handler.onFailure("EVAL after NOSCRIPT could not be sent");
                    }
                    return;
                }
                handler.onReply(reply);
            }

            @Override
            public void onFailure(String reason) {
                handler.onFailure(reason);
            }
        });
    }

    private static void removeByIdentity(List<RedisCall> calls, RedisCall call) {
        for (int i = calls.size() - 1; i >= 0; i--) {
            if (calls.get(i) == call) {
                calls.remove(i);
                return;
            }
        }
    }

    /** {@code fallback} with the attributes of the Step it replaces, so the log still names the policy. */
    private static Step carrying(Step fallback, Step replaced) {
        Step out = fallback;
        for (Map.Entry<String, String> attribute : replaced.attributes().entrySet()) {
            out = out.withAttribute(attribute.getKey(), attribute.getValue());
        }
        return out;
    }
}
