package io.ailb.lb.policy.inflight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.model.Endpoint;
import io.ailb.lb.policy.LoadBalancingPolicy;
import io.ailb.lb.policy.PolicyRegistry;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.policy.Step;
import io.ailb.lb.redis.FreshRedisTest;
import io.ailb.lb.redis.RedisCall;
import io.ailb.lb.redis.RedisKeys;
import io.ailb.lb.request.RequestInfo;
import io.ailb.lb.request.RequestParser;
import io.ailb.lb.util.Rng;
import io.ailb.lb.util.TestConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The policies' Steps executed the way the shell does, against a real Redis. */
class PolicyRoundTripTest extends FreshRedisTest {
    private static final String ROUTE = "route";
    private static final String CLUSTER = "outbound|80||llm.static";

    private static LoadBalancingPolicy policy(String name, String extra) throws ConfigException {
        return PolicyRegistry.create(TestConfig.root("{\"lb_policy\":\"" + name + "\",\"lb_config\":{"
                + "\"serviceFQDN\":\"redis.static\",\"servicePort\":6379" + extra + "}}"));
    }

    private Step execute(LoadBalancingPolicy policy, long seed) {
        return execute(policy, seed, null);
    }

    /** Every release the Steps of one request carried, collected as the shell collects them. */
    private final List<RedisCall> releases = new ArrayList<>();

    private Step execute(LoadBalancingPolicy policy, long seed, String body) {
        releases.clear();
        RequestInfo request = body == null
                ? RequestInfo.noBody()
                : RequestParser.parse("application/json", null, body.getBytes(StandardCharsets.UTF_8), body.length());
        Step step = policy.select(RequestContext.builder()
                .routeName(ROUTE)
                .clusterName(CLUSTER)
                .endpoints(Arrays.asList(new Endpoint("a:1", true, null), new Endpoint("b:1", true, null)))
                .request(request)
                .random(new Rng(seed))
                .build());
        releases.addAll(step.releases());
        while (step.kind() == Step.Kind.REDIS) {
            step = step.onReply(redis.run(step.redisCommand()));
            releases.addAll(step.releases());
        }
        return step;
    }

    /** The releases of the request {@link #execute} just ran. */
    private List<RedisCall> takeReleases() {
        List<RedisCall> out = new ArrayList<>(releases);
        releases.clear();
        return out;
    }

    private void releaseAll(List<RedisCall> calls) {
        for (RedisCall call : calls) {
            redis.run(call.command());
        }
    }

    @Test
    void concurrentRequestsSpreadOverTheHostsAndReleasesBringTheCountsBackToZero() throws ConfigException {
        LoadBalancingPolicy policy = policy("global_least_request", "");
        Step first = execute(policy, 1);
        List<RedisCall> firstReleases = takeReleases();
        Step second = execute(policy, 2);
        List<RedisCall> secondReleases = takeReleases();
        assertEquals(
                2,
                Arrays.asList(first.host(), second.host()).stream().distinct().count());
        assertEquals(1, firstReleases.size(), "one release per request");
        releaseAll(firstReleases);
        releaseAll(secondReleases);
        assertEquals(
                0, redis.call("HLEN", RedisKeys.of(ROUTE, CLUSTER).inflight()).asLong());
        assertEquals(
                0, redis.call("EXISTS", RedisKeys.of(ROUTE, CLUSTER).leases()).asLong());
    }

    @Test
    void aReleaseSentTwiceOrForAnUncertainCallGivesBackOneCount() throws ConfigException {
        LoadBalancingPolicy policy = policy("global_least_request", "");
        Step first = execute(policy, 1);
        List<RedisCall> firstReleases = takeReleases();
        execute(policy, 2);
        releaseAll(firstReleases);
        releaseAll(firstReleases);
        assertEquals(Long.valueOf(1), inflightTotal(), "the second request still counts");
        assertTrue(redis.call("HGET", RedisKeys.of(ROUTE, CLUSTER).inflight(), first.host())
                .isNull());

        // A decision call that timed out before reaching Redis: its release finds no lease and changes nothing.
        Step never = policy.select(RequestContext.builder()
                .routeName(ROUTE)
                .clusterName(CLUSTER)
                .endpoints(Arrays.asList(new Endpoint("a:1", true, null), new Endpoint("b:1", true, null)))
                .request(RequestInfo.noBody())
                .random(new Rng(3))
                .build());
        releaseAll(never.releases());
        assertEquals(Long.valueOf(1), inflightTotal());
    }

    private Long inflightTotal() {
        long total = 0;
        List<io.ailb.codec.resp.RespValue> values =
                redis.call("HVALS", RedisKeys.of(ROUTE, CLUSTER).inflight()).elements();
        for (io.ailb.codec.resp.RespValue value : values) {
            total += Long.parseLong(value.asString());
        }
        return total;
    }

    @Test
    void theRequestPastMaxRequestCountIsRejected() throws ConfigException {
        LoadBalancingPolicy policy = policy("global_least_request", ",\"maxRequestCount\":1");
        execute(policy, 1);
        execute(policy, 2);
        Step third = execute(policy, 3);
        assertEquals(429, third.status());
        assertTrue(third.releases().isEmpty());
        releaseAll(takeReleases());
        assertEquals(Long.valueOf(2), inflightTotal(), "the 429's release found no lease");
    }

    @Test
    void aFollowUpTurnReturnsToTheHostThatServedTheConversation() throws ConfigException {
        LoadBalancingPolicy policy = policy("prefix_cache", "");
        String turn1 = "{\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";
        String turn2 = "{\"messages\":[{\"role\":\"user\",\"content\":\"hello\"},"
                + "{\"role\":\"assistant\",\"content\":\"hi\"},{\"role\":\"user\",\"content\":\"more\"}]}";
        Step first = execute(policy, 1, turn1);
        releaseAll(takeReleases());
        // The other host is now less loaded, yet the conversation stays where its KV cache is.
        redis.call("HSET", RedisKeys.of(ROUTE, CLUSTER).inflight(), first.host(), "5");
        Step second = execute(policy, 2, turn2);
        assertEquals(first.host(), second.host());
        assertEquals("1", second.attributes().get(Step.ATTR_PREFIX_LENGTH));
        assertEquals(1, second.prefixLength());
    }
}
