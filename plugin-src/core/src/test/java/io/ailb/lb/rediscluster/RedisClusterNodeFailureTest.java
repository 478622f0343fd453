package io.ailb.lb.rediscluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.resp.RespValue;
import io.ailb.hostkit.TestRedisCluster;
import io.ailb.lb.policy.LoadBalancingPolicy;
import io.ailb.lb.policy.Step;
import io.ailb.lb.redis.RedisCall;
import io.ailb.lb.redis.RedisKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One node of a 3-node Redis Cluster killed mid-run, every Redis policy at once: the routes whose slots live on the
 * other nodes keep being routed by their scripts with their counts intact; a call for the dead node's slots fails as a
 * connection error (the plugin turns a failed Redis call into a fallback, see RedisFaultScenarioTest and
 * RedisOutageScenarioTest in integration-tests/plugin-scenarios); after the node is restarted on its port with its
 * cluster state file, its routes are routed by their scripts again.
 */
class RedisClusterNodeFailureTest {
    private static final int DOWN = 1;

    private TestRedisCluster cluster;
    private ClusterClient client;

    @BeforeEach
    void startCluster() {
        cluster = TestRedisCluster.start();
        client = new ClusterClient(cluster);
    }

    @AfterEach
    void stopCluster() {
        cluster.close();
    }

    private static final class Route {
        final RedisPolicyKind kind;
        final String name;
        final LoadBalancingPolicy policy;
        final List<Step> inFlight = new ArrayList<>();
        int requests;

        Route(RedisPolicyKind kind, String name, LoadBalancingPolicy policy) {
            this.kind = kind;
            this.name = name;
            this.policy = policy;
        }
    }

    /** One request of {@code route} through its script; returns the in-flight count the reply states. */
    private long routed(Route route) {
        Step call = route.policy.select(route.kind.request(route.name, route.requests++));
        RespValue reply = client.run(call.redisCommand());
        assertFalse(reply.isError(), route.name + ": " + reply);
        Step decision = call.onReply(reply);
        assertTrue(
                decision.kind() == Step.Kind.ROUTE || decision.kind() == Step.Kind.CLUSTER,
                route.kind + " decided by its script: " + decision);
        route.inFlight.add(call);
        return route.kind.count(reply);
    }

    private void releaseAll(Route route) {
        for (Step call : route.inFlight) {
            for (RedisCall release : call.releases()) {
                assertFalse(client.run(release.command()).isError());
            }
        }
        route.inFlight.clear();
    }

    private long totalInFlight(Route route) {
        RedisKeys keys = route.kind.keys(route.name);
        long total = 0;
        List<RespValue> counts = cluster.call("HVALS", keys.inflight()).elements();
        for (RespValue count : counts) {
            total += Long.parseLong(count.asString());
        }
        return total;
    }

    @Test
    void theOtherNodesRoutesKeepWorkingWhileOneIsDownAndItsRoutesComeBackWithIt() throws IOException {
        Map<RedisPolicyKind, List<Route>> routes = new EnumMap<>(RedisPolicyKind.class);
        for (RedisPolicyKind kind : RedisPolicyKind.values()) {
            List<Route> perNode = new ArrayList<>();
            for (String name : kind.oneRoutePerNode(cluster)) {
                perNode.add(new Route(kind, name, kind.newPolicy()));
            }
            routes.put(kind, perNode);
            for (Route route : perNode) {
                assertEquals(1, routed(route), route.name);
                assertEquals(1, totalInFlight(route), route.name);
            }
        }

        cluster.kill(DOWN);
        for (List<Route> perNode : routes.values()) {
            for (int node = 0; node < perNode.size(); node++) {
                Route route = perNode.get(node);
                if (node == DOWN) {
                    UncheckedIOException failure = assertThrows(UncheckedIOException.class, () -> routed(route));
                    assertTrue(failure.getCause() instanceof IOException, failure.toString());
                } else {
                    routed(route);
                    assertEquals(2, totalInFlight(route), route.kind + " " + route.name + " counts on, keys intact");
                    releaseAll(route);
                    assertEquals(0, totalInFlight(route), route.kind + " " + route.name);
                }
            }
        }

        cluster.restart(DOWN);
        Set<String> resent = new HashSet<>();
        for (List<Route> perNode : routes.values()) {
            Route back = perNode.get(DOWN);
            routed(back);
            String script = back.inFlight
                    .get(back.inFlight.size() - 1)
                    .redisCommand()
                    .script()
                    .name();
            assertEquals(resent.add(script), client.lastCallNeededEval, script + " sent again by EVAL, once");
            assertEquals(1, totalInFlight(back), back.kind + ": the restarted node came back empty");
            routed(back);
            assertFalse(client.lastCallNeededEval);
            assertEquals(2, totalInFlight(back), back.kind + " counts on after the restart");
            for (Route route : perNode) {
                releaseAll(route);
                assertEquals(0, totalInFlight(route), route.kind + " " + route.name + ": every count came back");
            }
        }
    }
}
