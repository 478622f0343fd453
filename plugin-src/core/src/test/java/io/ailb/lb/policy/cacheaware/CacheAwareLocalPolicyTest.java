package io.ailb.lb.policy.cacheaware;

import static io.ailb.lb.policy.Fixtures.chat;
import static io.ailb.lb.policy.Fixtures.ctx;
import static io.ailb.lb.policy.Fixtures.down;
import static io.ailb.lb.policy.Fixtures.up;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.policy.LoadBalancingPolicy;
import io.ailb.lb.policy.PolicyRegistry;
import io.ailb.lb.policy.ResponseObserver;
import io.ailb.lb.policy.Step;
import io.ailb.lb.request.RequestInfo;
import io.ailb.lb.util.TestConfig;
import org.junit.jupiter.api.Test;

/** cache_aware with {@code index: local}: no Redis, decisions now, counts kept by the routed Step's observer. */
class CacheAwareLocalPolicyTest {
    private static final String A = "10.0.0.1:8000";
    private static final String B = "10.0.0.2:8000";
    private static final String CONVERSATION = "{\"model\":\"m\",\"messages\":["
            + "{\"role\":\"system\",\"content\":\"" + "s".repeat(400) + "\"},"
            + "{\"role\":\"user\",\"content\":\"" + "q".repeat(400) + "\"}]}";

    private static CacheAwarePolicy policy(String fields) throws ConfigException {
        return new CacheAwarePolicy(TestConfig.view("{\"index\":\"local\"" + fields + "}"));
    }

    private static Step select(CacheAwarePolicy policy, RequestInfo request) {
        return policy.select(
                ctx(up(A), up(B), down("10.0.0.3:8000")).request(request).build());
    }

    /** The Step applied as the flow does: its observer told the route took effect. */
    private static Step applied(CacheAwarePolicy policy, RequestInfo request) {
        Step step = select(policy, request);
        assertEquals(Step.Kind.ROUTE, step.kind(), step.toString());
        step.responseObserver().onApplied(0);
        return step;
    }

    @Test
    void withoutRedisFieldsItIsRegisteredAndConnectsToNoRedis() throws ConfigException {
        LoadBalancingPolicy policy = PolicyRegistry.create(
                TestConfig.root("{\"lb_policy\":\"cache_aware\",\"lb_config\":{\"index\":\"local\"}}"));
        assertEquals("cache_aware", policy.name());
        assertTrue(policy.redisTargets().isEmpty());
    }

    @Test
    void namedRedisFieldsAreStillCheckedButUnused() throws ConfigException {
        assertTrue(policy(",\"serviceFQDN\":\"redis.static\",\"servicePort\":6379")
                .redisTargets()
                .isEmpty());
        assertEquals(
                "lb_config.servicePort: is required",
                assertThrows(ConfigException.class, () -> policy(",\"serviceFQDN\":\"redis.static\""))
                        .getMessage());
    }

    @Test
    void anUnknownIndexIsRefusedNamingTheAcceptedValues() {
        assertEquals(
                "lb_config.index=disk: must be one of redis, local",
                assertThrows(ConfigException.class, () -> new CacheAwarePolicy(TestConfig.view("{\"index\":\"disk\"}")))
                        .getMessage());
        assertEquals(
                "lb_config.serviceFQDN: is required",
                assertThrows(ConfigException.class, () -> new CacheAwarePolicy(TestConfig.view("{}")))
                        .getMessage(),
                "index redis, the default, still needs its Redis");
    }

    @Test
    void aRouteIsDecidedNowWithTheRedisModeAttributesAndNoRedisCall() throws ConfigException {
        Step step = select(policy(""), chat(CONVERSATION));
        assertEquals(Step.Kind.ROUTE, step.kind());
        assertNotNull(step.responseObserver());
        assertTrue(step.releases().isEmpty());
        assertTrue(step.firstResponseCalls().isEmpty());
        assertEquals("cache_aware", step.attributes().get(Step.ATTR_POLICY));
        assertEquals("1", step.attributes().get(Step.ATTR_INFLIGHT));
        assertEquals("0", step.attributes().get(CacheAwarePolicy.ATTR_MATCHED_TOKENS));
        assertEquals("200", step.attributes().get(CacheAwarePolicy.ATTR_WORK));
        assertEquals(
                "20",
                step.attributes().get(CacheAwarePolicy.ATTR_FIRST_TOKEN_IN_MS),
                "not streamed: its 200 tokens at 10,000 a second");
        assertEquals(0, step.prefixLength());
    }

    @Test
    void theFollowUpGoesToTheHostHoldingItsPrefix() throws ConfigException {
        CacheAwarePolicy policy = policy("");
        Step first = applied(policy, chat(CONVERSATION));
        first.responseObserver().onFirstResponseBody(0);
        first.responseObserver().onStreamEnd(0);
        Step again = applied(policy, chat(CONVERSATION));
        assertEquals(first.host(), again.host());
        assertEquals(chat(CONVERSATION).prefixHashes().size(), again.prefixLength(), "every block matched");
        assertEquals("200", again.attributes().get(CacheAwarePolicy.ATTR_MATCHED_TOKENS));
        assertEquals("0", again.attributes().get(CacheAwarePolicy.ATTR_WORK));
    }

    @Test
    void aPrefixCountsAsEvictedOnceMoreThanTheReportedKvCacheWasWrittenSince() throws ConfigException {
        String other = CONVERSATION.replace('q', 'r');
        // 200-token prompts, one block each; the instance reports a cache of 160 tokens (10 blocks of 16), or none.
        assertEquals(
                "0",
                matchedAfterAnotherPrompt(
                        "vllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"10\"} 1\n", other));
        assertEquals("200", matchedAfterAnotherPrompt(null, other), "without a reported size it stays cached");
    }

    /** Tokens matched by CONVERSATION on its only instance after it and {@code other} were prefilled there. */
    private static String matchedAfterAnotherPrompt(String metrics, String other) throws ConfigException {
        CacheAwarePolicy policy = policy("");
        Step last = null;
        for (String body : new String[] {CONVERSATION, other, CONVERSATION}) {
            last = policy.select(ctx(up(A, metrics)).request(chat(body)).build());
            last.responseObserver().onApplied(0);
            last.responseObserver().onFirstResponseBody(0);
            last.responseObserver().onStreamEnd(0);
        }
        return last.attributes().get(CacheAwarePolicy.ATTR_MATCHED_TOKENS);
    }

    @Test
    void aRequestCountsFromItsApplicationToItsEndAndItsWorkUntilItsFirstByte() throws ConfigException {
        CacheAwarePolicy policy = policy("");
        Step first = applied(policy, RequestInfo.noBody());
        // The first holds its host: a bodyless request goes to the other one.
        Step second = applied(policy, RequestInfo.noBody());
        assertTrue(!first.host().equals(second.host()));
        ResponseObserver firstObserver = first.responseObserver();
        firstObserver.onFirstResponseBody(0);
        firstObserver.onStreamEnd(0);
        Step third = select(policy, RequestInfo.noBody());
        assertEquals(first.host(), third.host(), "the first's count was given back");
        assertEquals("1", third.attributes().get(Step.ATTR_INFLIGHT));
    }

    @Test
    void anUnstreamedRequestsPrefillCountsAsDoneOnceItsFirstTokenIsExpected() throws ConfigException {
        // CONVERSATION does not ask for a stream: its 200 tokens are expected prefilled 20 ms after its routing (10,000
        // tokens a second), and its host's queue drains at that rate meanwhile. While the queue left outweighs the
        // copy on the idle host, the follow-up goes there.
        assertFalse(followUpStays(5, -1), "queue 200 - 50 drained + 60 in flight against a 200-token copy");
        assertTrue(followUpStays(8, -1), "queue 200 - 80 drained + 60 in flight against the copy");
        assertTrue(followUpStays(20, -1), "60 in flight against the copy");
        assertTrue(followUpStays(5, 3), "a first byte before the expected time takes the work off as well");
    }

    /**
     * Whether the conversation's follow-up, {@code afterMillis} after its first request, goes to the same host; the
     * first's first response byte came {@code byteAfterMillis} after it (negative: not yet).
     */
    private static boolean followUpStays(long afterMillis, long byteAfterMillis) throws ConfigException {
        CacheAwarePolicy policy = policy("");
        Step first = applied(policy, chat(CONVERSATION));
        if (byteAfterMillis >= 0) {
            first.responseObserver().onFirstResponseBody(1_000_000 + byteAfterMillis);
        }
        Step followUp = policy.select(ctx(up(A), up(B))
                .nowMillis(1_000_000 + afterMillis)
                .request(chat(CONVERSATION))
                .build());
        return followUp.host().equals(first.host());
    }

    @Test
    void aRouteThatNeverTookEffectCountsNothing() throws ConfigException {
        CacheAwarePolicy policy = policy(",\"maxRequestCount\":1");
        select(policy, RequestInfo.noBody());
        select(policy, RequestInfo.noBody());
        Step applied = applied(policy, RequestInfo.noBody());
        assertEquals("1", applied.attributes().get(Step.ATTR_INFLIGHT));
    }

    @Test
    void atTheCapTheRequestGetsTheSame429AsInRedisMode() throws ConfigException {
        CacheAwarePolicy policy = policy(",\"maxRequestCount\":1");
        applied(policy, RequestInfo.noBody());
        applied(policy, RequestInfo.noBody());
        Step full = select(policy, RequestInfo.noBody());
        assertEquals(Step.Kind.REJECT, full.kind());
        assertEquals(429, full.status());
        assertEquals("1", full.attributes().get(Step.ATTR_INFLIGHT));
    }
}
