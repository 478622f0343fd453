package io.ailb.lb.rediscluster;

import static io.ailb.lb.policy.Fixtures.REDIS;
import static io.ailb.lb.policy.Fixtures.chat;
import static io.ailb.lb.policy.Fixtures.down;
import static io.ailb.lb.policy.Fixtures.up;

import io.ailb.codec.resp.RespValue;
import io.ailb.hostkit.TestRedisCluster;
import io.ailb.lb.config.ConfigException;
import io.ailb.lb.policy.LoadBalancingPolicy;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.policy.cacheaware.CacheAwarePolicy;
import io.ailb.lb.policy.cacheaware.CacheAwareSelection;
import io.ailb.lb.policy.clustermetrics.ClusterMetricsPolicy;
import io.ailb.lb.policy.globalleastrequest.GlobalLeastRequestPolicy;
import io.ailb.lb.policy.inflight.InflightSelection;
import io.ailb.lb.policy.prefixcache.PrefixCachePolicy;
import io.ailb.lb.redis.RedisKeys;
import io.ailb.lb.util.Rng;
import io.ailb.lb.util.TestConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Every policy that calls Redis, built from its configuration as the plugin builds it, with the key layout of its
 * routes and requests of several conversations that share prefixes. The tests send the script calls the policies
 * themselves build, so the key layout is the production one.
 */
enum RedisPolicyKind {
    GLOBAL_LEAST_REQUEST,
    PREFIX_CACHE,
    CACHE_AWARE,
    CLUSTER_METRICS;

    static final String UPSTREAM_CLUSTER = "outbound|8000||vllm.static";
    /** cluster_metrics' default {@code global_key_prefix}. */
    static final String SERVICES_KEY_PREFIX = "higress:adaptive_score_inflight";

    private static final String SERVICES =
            "\"service_list\":[\"outbound|80||a.dns\",\"outbound|80||b.dns\",\"outbound|80||c.dns\"]";

    LoadBalancingPolicy newPolicy() {
        try {
            switch (this) {
                case GLOBAL_LEAST_REQUEST:
                    return new GlobalLeastRequestPolicy(TestConfig.view(REDIS + "}"));
                case PREFIX_CACHE:
                    return new PrefixCachePolicy(TestConfig.view(REDIS + "}"));
                case CACHE_AWARE:
                    return new CacheAwarePolicy(TestConfig.view(REDIS + "}"));
                default:
                    return new ClusterMetricsPolicy(TestConfig.view("{\"mode\":\"AdaptiveScore\"," + SERVICES
                            + ",\"global_inflight_enabled\":true,\"serviceFQDN\":\"redis.static\","
                            + "\"servicePort\":6379}"));
            }
        } catch (ConfigException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The keys of {@code route} in this policy's layout. */
    RedisKeys keys(String route) {
        return this == CLUSTER_METRICS
                ? RedisKeys.forServices(SERVICES_KEY_PREFIX, route)
                : RedisKeys.of(route, UPSTREAM_CLUSTER);
    }

    /**
     * Request {@code n} of {@code route}: one of three conversations (same system prompt), at a turn that grows with
     * {@code n}, so later requests find their earlier prefixes.
     */
    RequestContext request(String route, int n) {
        StringBuilder body = new StringBuilder(
                "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"You answer briefly.\"}");
        for (int turn = 0; turn <= n / 3; turn++) {
            body.append(",{\"role\":\"user\",\"content\":\"conversation ")
                    .append(n % 3)
                    .append(" question ")
                    .append(turn)
                    .append("\"},{\"role\":\"assistant\",\"content\":\"answer ")
                    .append(turn)
                    .append("\"}");
        }
        body.append(",{\"role\":\"user\",\"content\":\"next\"}]}");
        return RequestContext.builder()
                .routeName(route)
                .clusterName(UPSTREAM_CLUSTER)
                .authority("llm.example")
                .endpoints(Arrays.asList(
                        up("10.0.0.1:8000"), up("10.0.0.2:8000"), up("10.0.0.3:8000"), down("10.0.0.9:8000")))
                .request(chat(body.toString()))
                .nowMillis(1_000_000 + 1000L * n)
                .random(new Rng(1000 + n))
                .build();
    }

    /** The in-flight count a selection reply states for the chosen host or service. */
    long count(RespValue reply) {
        switch (this) {
            case CACHE_AWARE:
                return CacheAwareSelection.parse(reply).count();
            case CLUSTER_METRICS:
                return reply.elements().get(1).asLong();
            default:
                return InflightSelection.parse(reply).count();
        }
    }

    /** Route names of this policy, element {@code i} the first one whose keys live on node {@code i}. */
    List<String> oneRoutePerNode(TestRedisCluster cluster) {
        List<String> routes = new ArrayList<>();
        for (int node = 0; node < cluster.nodeCount(); node++) {
            routes.add(null);
        }
        int found = 0;
        for (int i = 0; found < cluster.nodeCount(); i++) {
            String route = name().toLowerCase(Locale.ROOT) + "-" + i;
            int node = cluster.nodeOf(keys(route).inflight());
            if (routes.get(node) == null) {
                routes.set(node, route);
                found++;
            }
        }
        return routes;
    }
}
