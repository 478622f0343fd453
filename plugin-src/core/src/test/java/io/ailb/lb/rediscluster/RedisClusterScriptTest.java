package io.ailb.lb.rediscluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.resp.RespValue;
import io.ailb.hostkit.TestRedisCluster;
import io.ailb.lb.policy.LoadBalancingPolicy;
import io.ailb.lb.policy.Step;
import io.ailb.lb.redis.FreshRedisTest;
import io.ailb.lb.redis.RedisCall;
import io.ailb.lb.redis.RedisCommand;
import io.ailb.lb.redis.RedisKeys;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every production script on a real 3-node Redis Cluster against the same calls on one standalone server: the calls
 * the policies build (select.lua for global_least_request and prefix_cache, cache_aware.lua and its first-token and
 * release scripts, cluster_select.lua, release.lua), for routes whose keys live on different nodes. The cluster
 * refuses a call whose keys span slots ({@code CROSSSLOT}), so equal replies and equal keys show that no call does.
 */
class RedisClusterScriptTest extends FreshRedisTest {
    private static final int REQUESTS = 30;
    /** Redis clock values (Unix seconds) in lease expiries and holder uses; counts and tokens here stay far below. */
    private static final long CLOCK_VALUES_FROM = 1_000_000_000L;

    private static TestRedisCluster cluster;
    private static ClusterClient client;

    @BeforeAll
    static void startCluster() {
        cluster = TestRedisCluster.start();
        client = new ClusterClient(cluster);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @BeforeEach
    void emptyCluster() {
        cluster.flushAll();
    }

    @ParameterizedTest
    @EnumSource(RedisPolicyKind.class)
    void everyScriptGivesTheSameRepliesAndLeavesTheSameKeysAsOnOneServer(RedisPolicyKind kind) {
        List<String> routes = kind.oneRoutePerNode(cluster);
        LoadBalancingPolicy policy = kind.newPolicy();
        List<Step> calls = new ArrayList<>();
        List<Step> decisions = new ArrayList<>();
        Set<String> hostsChosen = new HashSet<>();
        for (int n = 0; n < REQUESTS; n++) {
            String route = routes.get(n % routes.size());
            Step call = policy.select(kind.request(route, n));
            assertEquals(Step.Kind.REDIS, call.kind(), call.toString());
            RespValue reply = sameOnBoth(kind, routes, route, call.redisCommand());
            Step decision = call.onReply(reply);
            assertTrue(
                    decision.kind() == Step.Kind.ROUTE || decision.kind() == Step.Kind.CLUSTER,
                    "decided by the reply " + reply + ": " + decision);
            hostsChosen.add(decision.host() != null ? decision.host() : decision.clusterHeader());
            calls.add(call);
            decisions.add(decision);
        }
        assertTrue(hostsChosen.size() > 1, "the requests spread: " + hostsChosen);
        // Every other request ends (first token, then release); the rest stay in flight in the keys compared.
        for (int n = 0; n < REQUESTS; n++) {
            if (n % 2 == 1) {
                continue;
            }
            String route = routes.get(n % routes.size());
            for (RedisCall firstToken : decisions.get(n).firstResponseCalls()) {
                sameOnBoth(kind, routes, route, firstToken.command());
            }
            assertFalse(calls.get(n).releases().isEmpty(), "every counted request has a release");
            for (RedisCall release : calls.get(n).releases()) {
                sameOnBoth(kind, routes, route, release.command());
            }
        }
        assertSameKeys(kind, routes);
    }

    /**
     * Sends {@code command} of {@code route} to both servers after checking that it names keys of that route only,
     * and returns the reply, the same from both.
     */
    private RespValue sameOnBoth(RedisPolicyKind kind, List<String> routes, String route, RedisCommand command) {
        assertOnlyKeysOf(kind, routes, route, command);
        RespValue standalone = redis.run(command);
        RespValue clustered = client.run(command);
        assertFalse(standalone.isError(), command + " → " + standalone);
        assertEquals(standalone, clustered, command.toString());
        return standalone;
    }

    /** Every key of the call carries the route's hash tag (so one slot) and no other route's. */
    private static void assertOnlyKeysOf(
            RedisPolicyKind kind, List<String> routes, String route, RedisCommand command) {
        String tag = kind.keys(route).hashTag();
        int slot = TestRedisCluster.slot(tag);
        assertFalse(command.keys().isEmpty(), command.toString());
        for (String key : command.keys()) {
            assertTrue(key.contains(tag), key + " is a key of " + route);
            assertEquals(slot, TestRedisCluster.slot(key), key);
            for (String other : routes) {
                if (!other.equals(route)) {
                    assertFalse(key.contains(kind.keys(other).hashTag()), key + " names " + other);
                }
            }
        }
    }

    /**
     * The cluster holds exactly the standalone server's keys, each route's keys on the node that owns its slot and
     * every node holding some, with the same contents.
     */
    private void assertSameKeys(RedisPolicyKind kind, List<String> routes) {
        Set<String> standaloneKeys = new TreeSet<>();
        for (RespValue key : redis.call("KEYS", "*").elements()) {
            standaloneKeys.add(key.asString());
        }
        Set<String> clusterKeys = new TreeSet<>();
        for (int node = 0; node < cluster.nodeCount(); node++) {
            String tag = kind.keys(routes.get(node)).hashTag();
            List<RespValue> keys = cluster.callOn(node, "KEYS", "*").elements();
            assertFalse(keys.isEmpty(), "node " + node + " holds the keys of " + routes.get(node));
            for (RespValue key : keys) {
                assertTrue(key.asString().contains(tag), key + " on node " + node);
                clusterKeys.add(key.asString());
            }
        }
        assertEquals(standaloneKeys, clusterKeys);
        for (String key : standaloneKeys) {
            assertSameUpToTheClockSecond(contents(redis::call, key), contents(cluster::call, key), key);
        }
    }

    /** A key's type, whether it expires, and its value (hash and sorted-set entries in order). */
    private static List<String> contents(Function<String[], RespValue> call, String key) {
        List<String> out = new ArrayList<>();
        String type = call.apply(new String[] {"TYPE", key}).asString();
        out.add(type);
        out.add(call.apply(new String[] {"TTL", key}).asLong() > 0 ? "expires" : "persists");
        switch (type) {
            case "hash":
                out.addAll(pairs(call.apply(new String[] {"HGETALL", key})));
                break;
            case "zset":
                out.addAll(pairs(call.apply(new String[] {"ZRANGE", key, "0", "-1", "WITHSCORES"})));
                break;
            case "string":
                out.add(call.apply(new String[] {"GET", key}).asString());
                break;
            default:
                throw new AssertionError("the scripts write no " + type + ": " + key);
        }
        return out;
    }

    private static List<String> pairs(RespValue flat) {
        TreeMap<String, String> sorted = new TreeMap<>();
        List<RespValue> items = flat.elements();
        for (int i = 0; i < items.size(); i += 2) {
            sorted.put(items.get(i).asString(), items.get(i + 1).asString());
        }
        List<String> out = new ArrayList<>();
        sorted.forEach((field, value) -> out.add(field + "=" + value));
        return out;
    }

    /**
     * Equal, except that a Redis clock value (lease expiry, last use) may be one second apart: the two servers ran the
     * same call a moment apart.
     */
    private static void assertSameUpToTheClockSecond(List<String> expected, List<String> actual, String key) {
        assertEquals(expected.size(), actual.size(), key + ": " + expected + " vs " + actual);
        for (int i = 0; i < expected.size(); i++) {
            String a = expected.get(i);
            String b = actual.get(i);
            long clockA = clockValue(a);
            long clockB = clockValue(b);
            if (clockA >= CLOCK_VALUES_FROM && clockB >= CLOCK_VALUES_FROM) {
                assertEquals(a.substring(0, a.indexOf('=')), b.substring(0, b.indexOf('=')), key);
                assertEquals(afterClock(a), afterClock(b), key + ": " + a + " vs " + b);
                assertTrue(Math.abs(clockA - clockB) <= 1, key + ": " + a + " vs " + b);
            } else {
                assertEquals(a, b, key + ": " + expected + " vs " + actual);
            }
        }
    }

    /**
     * The whole number after {@code =} up to a space (cache_aware's holder values are {@code "<last use> <written> <lease>"}),
     * or -1.
     */
    private static long clockValue(String entry) {
        int eq = entry.indexOf('=');
        String value = eq < 0 ? "" : entry.substring(eq + 1);
        int space = value.indexOf(' ');
        value = space < 0 ? value : value.substring(0, space);
        if (value.isEmpty() || value.length() > 18 || !value.chars().allMatch(Character::isDigit)) {
            return -1;
        }
        return Long.parseLong(value);
    }

    /** What follows a clock value: the rest of the entry after its first space, or "". */
    private static String afterClock(String entry) {
        int space = entry.indexOf(' ', entry.indexOf('=') + 1);
        return space < 0 ? "" : entry.substring(space);
    }

    @Test
    void aCallMixingTwoRoutesKeysIsRefusedByTheClusterSoTheCheckAboveIsReal() {
        RedisPolicyKind kind = RedisPolicyKind.GLOBAL_LEAST_REQUEST;
        List<String> routes = kind.oneRoutePerNode(cluster);
        RedisKeys other = kind.keys(routes.get(1));
        RedisCommand production =
                kind.newPolicy().select(kind.request(routes.get(0), 0)).redisCommand();
        List<String> mixedKeys = new ArrayList<>(production.keys());
        mixedKeys.set(2, other.leases());
        RedisCommand mixed = RedisCommand.script(production.script(), mixedKeys, production.args());

        RespValue reply = client.run(mixed);
        assertEquals("CROSSSLOT", reply.errorCode(), reply.toString());
        assertFalse(redis.run(mixed).isError(), "one server runs it: only a cluster shows the mistake");
        assertNotEquals(cluster.nodeOf(production.keys().get(0)), cluster.nodeOf(other.leases()));
    }
}
