package io.ailb.lb.policy;

import io.ailb.codec.resp.RespValue;
import io.ailb.lb.redis.RedisCall;
import io.ailb.lb.redis.RedisCommand;
import io.ailb.lb.redis.RedisTarget;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * What a policy wants next for one request. Immutable: {@link #withAttribute}, {@link #withRelease} and
 * {@link #withFirstResponseCall} return copies.
 *
 * <p>Release commands: the shell collects the releases of every Step it receives for a stream (including Steps
 * returned by {@code onReply}) and sends each exactly once when the stream ends, or at once if the Step arrives after
 * the stream is gone. So the shell must still call {@code onReply} for a late Redis reply.
 */
public final class Step {
    public enum Kind {
        ROUTE,
        /** lb_type cluster: write the chosen service into a request header the route picks its cluster by. */
        CLUSTER,
        FALLBACK,
        REJECT,
        REDIS
    }

    /** The policy's configured name. */
    public static final String ATTR_POLICY = "lb_policy";
    /** "true" when a cached prefix decided the host; written by {@link #withPrefixMatch} only. */
    public static final String ATTR_CACHE_HIT = "cache_hit";
    /** How many leading conversation blocks matched a stored prefix; written by {@link #withPrefixMatch} only. */
    public static final String ATTR_PREFIX_LENGTH = "prefix_length";
    /** {@link #prefixLength()} of a Step that reports no prefix match. */
    public static final int NO_PREFIX_MATCH = -1;
    /** The chosen host's in-flight count after this request was added. */
    public static final String ATTR_INFLIGHT = "inflight_count";

    private final Kind kind;
    private final String host;
    private final FallbackReason reason;
    private final int status;
    private final String body;
    private final RedisTarget target;
    private final RedisCommand command;
    private final Function<RespValue, Step> onReply;
    private final Map<String, String> attributes;
    private final int prefixLength;
    private final List<RedisCall> releases;
    private final List<RedisCall> firstResponseCalls;
    private final String clusterHeader;
    private final ResponseObserver observer;
    private final Step onRedisFailure;

    private Step(
            Kind kind,
            String host,
            FallbackReason reason,
            int status,
            String body,
            RedisTarget target,
            RedisCommand command,
            Function<RespValue, Step> onReply,
            Map<String, String> attributes,
            int prefixLength,
            List<RedisCall> releases,
            List<RedisCall> firstResponseCalls,
            String clusterHeader,
            ResponseObserver observer,
            Step onRedisFailure) {
        this.kind = kind;
        this.host = host;
        this.reason = reason;
        this.status = status;
        this.body = body;
        this.target = target;
        this.command = command;
        this.onReply = onReply;
        this.attributes = attributes;
        this.prefixLength = prefixLength;
        this.releases = releases;
        this.firstResponseCalls = firstResponseCalls;
        this.clusterHeader = clusterHeader;
        this.observer = observer;
        this.onRedisFailure = onRedisFailure;
    }

    /** Override the upstream host to {@code host} ({@code ip:port}). */
    public static Step route(String host) {
        return new Step(
                Kind.ROUTE,
                Objects.requireNonNull(host, "host"),
                null,
                0,
                null,
                null,
                null,
                null,
                Collections.emptyMap(),
                NO_PREFIX_MATCH,
                Collections.emptyList(),
                Collections.emptyList(),
                null,
                null,
                null);
    }

    /**
     * lb_type cluster: set request header {@code header} to {@code cluster} (an Envoy cluster name); the route picks
     * its cluster by that header.
     */
    public static Step toCluster(String header, String cluster) {
        return new Step(
                Kind.CLUSTER,
                Objects.requireNonNull(cluster, "cluster"),
                null,
                0,
                null,
                null,
                null,
                null,
                Collections.emptyMap(),
                NO_PREFIX_MATCH,
                Collections.emptyList(),
                Collections.emptyList(),
                Objects.requireNonNull(header, "header"),
                null,
                null);
    }

    /** Leave the choice to the cluster's own load balancer. */
    public static Step fallback(FallbackReason reason) {
        return new Step(
                Kind.FALLBACK,
                null,
                Objects.requireNonNull(reason, "reason"),
                0,
                null,
                null,
                null,
                null,
                Collections.emptyMap(),
                NO_PREFIX_MATCH,
                Collections.emptyList(),
                Collections.emptyList(),
                null,
                null,
                null);
    }

    /** Answer locally with {@code status} and a plain-text {@code body}. */
    public static Step reject(int status, String body) {
        return new Step(
                Kind.REJECT,
                null,
                null,
                status,
                Objects.requireNonNull(body, "body"),
                null,
                null,
                null,
                Collections.emptyMap(),
                NO_PREFIX_MATCH,
                Collections.emptyList(),
                Collections.emptyList(),
                null,
                null,
                null);
    }

    /** Send {@code command} to {@code target}; a successful (non-error) reply is passed to {@code onReply}. */
    public static Step redis(RedisTarget target, RedisCommand command, Function<RespValue, Step> onReply) {
        return new Step(
                Kind.REDIS,
                null,
                null,
                0,
                null,
                Objects.requireNonNull(target, "target"),
                Objects.requireNonNull(command, "command"),
                Objects.requireNonNull(onReply, "onReply"),
                Collections.emptyMap(),
                NO_PREFIX_MATCH,
                Collections.emptyList(),
                Collections.emptyList(),
                null,
                null,
                null);
    }

    /**
     * A copy with one more decision attribute (insertion order kept; a repeated key is replaced). The prefix match
     * attributes are typed: {@link #withPrefixMatch} writes them.
     */
    public Step withAttribute(String key, String value) {
        if (ATTR_PREFIX_LENGTH.equals(key) || ATTR_CACHE_HIT.equals(key)) {
            throw new IllegalArgumentException(key + " is written by withPrefixMatch");
        }
        Map<String, String> copy = new LinkedHashMap<>(attributes);
        copy.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        return withAttributes(copy, prefixLength);
    }

    /**
     * A copy reporting that {@code blocks} (≥ 0) leading conversation blocks matched a stored prefix on the chosen
     * host (0: none): {@link #prefixLength()} for the match-depth metric, and the attributes {@code cache_hit} and
     * {@code prefix_length} for the log.
     */
    public Step withPrefixMatch(int blocks) {
        Map<String, String> copy = new LinkedHashMap<>(attributes);
        copy.put(ATTR_CACHE_HIT, Boolean.toString(blocks > 0));
        copy.put(ATTR_PREFIX_LENGTH, Integer.toString(blocks));
        return withAttributes(copy, blocks);
    }

    private Step withAttributes(Map<String, String> copy, int newPrefixLength) {
        return new Step(
                kind,
                host,
                reason,
                status,
                body,
                target,
                command,
                onReply,
                Collections.unmodifiableMap(copy),
                newPrefixLength,
                releases,
                firstResponseCalls,
                clusterHeader,
                observer,
                onRedisFailure);
    }

    /** A copy that also carries a command to send once when the stream ends. */
    public Step withRelease(RedisTarget releaseTarget, RedisCommand releaseCommand) {
        List<RedisCall> copy = new ArrayList<>(releases);
        copy.add(new RedisCall(releaseTarget, releaseCommand));
        return new Step(
                kind,
                host,
                reason,
                status,
                body,
                target,
                command,
                onReply,
                attributes,
                prefixLength,
                Collections.unmodifiableList(copy),
                firstResponseCalls,
                clusterHeader,
                observer,
                onRedisFailure);
    }

    /**
     * A copy of a ROUTE Step that also carries a call to send once when the first byte of the response body arrives
     * (the backend has produced its first token), if the stream is still open then; a {@link RedisCall#clocked} call
     * gets the flow's clock at that moment.
     */
    public Step withFirstResponseCall(RedisCall call) {
        if (kind != Kind.ROUTE) {
            throw new IllegalStateException("only a ROUTE step has a response: " + this);
        }
        List<RedisCall> copy = new ArrayList<>(firstResponseCalls);
        copy.add(call);
        return new Step(
                kind,
                host,
                reason,
                status,
                body,
                target,
                command,
                onReply,
                attributes,
                prefixLength,
                releases,
                Collections.unmodifiableList(copy),
                clusterHeader,
                observer,
                onRedisFailure);
    }

    /** A copy of a ROUTE or CLUSTER Step whose outcome {@code responseObserver} follows (see its contract). */
    public Step withResponseObserver(ResponseObserver responseObserver) {
        if (kind != Kind.ROUTE && kind != Kind.CLUSTER) {
            throw new IllegalStateException("only a ROUTE or CLUSTER step has a response: " + this);
        }
        return new Step(
                kind,
                host,
                reason,
                status,
                body,
                target,
                command,
                onReply,
                attributes,
                prefixLength,
                releases,
                firstResponseCalls,
                clusterHeader,
                Objects.requireNonNull(responseObserver, "responseObserver"),
                onRedisFailure);
    }

    /**
     * A copy of a REDIS Step that, when the call fails (unreachable, error reply, undecodable reply), goes on with
     * {@code step} instead of falling back: a policy with a good local answer (cluster_metrics without the shared
     * in-flight counts) keeps it.
     */
    public Step orOnRedisFailure(Step step) {
        if (kind != Kind.REDIS) {
            throw new IllegalStateException("not a REDIS step: " + this);
        }
        return new Step(
                kind,
                host,
                reason,
                status,
                body,
                target,
                command,
                onReply,
                attributes,
                prefixLength,
                releases,
                firstResponseCalls,
                clusterHeader,
                observer,
                Objects.requireNonNull(step, "step"));
    }

    public Kind kind() {
        return kind;
    }

    /** ROUTE: the chosen {@code ip:port}; CLUSTER: the chosen cluster; null otherwise. */
    public String host() {
        return host;
    }

    /** CLUSTER: the request header the cluster is written to; null otherwise. */
    public String clusterHeader() {
        return clusterHeader;
    }

    /** ROUTE or CLUSTER: who follows the outcome ({@link #withResponseObserver}); null when nobody. */
    public ResponseObserver responseObserver() {
        return observer;
    }

    /** REDIS: the Step to go on with when the call fails ({@link #orOnRedisFailure}); null = fall back. */
    public Step onRedisFailure() {
        return onRedisFailure;
    }

    /** FALLBACK: why; null otherwise. */
    public FallbackReason reason() {
        return reason;
    }

    /** REJECT: the HTTP status; 0 otherwise. */
    public int status() {
        return status;
    }

    /** REJECT: the response body; null otherwise. */
    public String body() {
        return body;
    }

    /** REDIS: where to send the command; null otherwise. */
    public RedisTarget redisTarget() {
        return target;
    }

    /** REDIS: the command; null otherwise. */
    public RedisCommand redisCommand() {
        return command;
    }

    /** REDIS: the next Step for a non-error reply. */
    public Step onReply(RespValue reply) {
        if (kind != Kind.REDIS) {
            throw new IllegalStateException("not a REDIS step: " + this);
        }
        return onReply.apply(reply);
    }

    /** Decision attributes for logs and user attributes, in insertion order. */
    public Map<String, String> attributes() {
        return attributes;
    }

    /** Leading conversation blocks that matched a stored prefix ({@link #withPrefixMatch}), else NO_PREFIX_MATCH. */
    public int prefixLength() {
        return prefixLength;
    }

    /** Commands to send exactly once when the stream ends. */
    public List<RedisCall> releases() {
        return releases;
    }

    /** ROUTE: commands to send once at the first byte of the response body ({@link #withFirstResponseCall}). */
    public List<RedisCall> firstResponseCalls() {
        return firstResponseCalls;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder(kind.name());
        switch (kind) {
            case ROUTE:
                out.append(' ').append(host);
                break;
            case CLUSTER:
                out.append(' ').append(clusterHeader).append('=').append(host);
                break;
            case FALLBACK:
                out.append(' ').append(reason);
                break;
            case REJECT:
                out.append(' ').append(status);
                break;
            default:
                out.append(' ').append(command);
                break;
        }
        if (!attributes.isEmpty()) {
            out.append(' ').append(attributes);
        }
        if (!releases.isEmpty()) {
            out.append(" release=").append(releases);
        }
        if (!firstResponseCalls.isEmpty()) {
            out.append(" first_response=").append(firstResponseCalls);
        }
        return out.toString();
    }
}
