package io.ailb.lb.policy.prefixcache;

import static io.ailb.lb.policy.Fixtures.CLUSTER;
import static io.ailb.lb.policy.Fixtures.REDIS;
import static io.ailb.lb.policy.Fixtures.ROUTE;
import static io.ailb.lb.policy.Fixtures.chat;
import static io.ailb.lb.policy.Fixtures.ctx;
import static io.ailb.lb.policy.Fixtures.list;
import static io.ailb.lb.policy.Fixtures.ok;
import static io.ailb.lb.policy.Fixtures.up;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.policy.Step;
import io.ailb.lb.policy.globalleastrequest.GlobalLeastRequestPolicy;
import io.ailb.lb.redis.RedisCommand;
import io.ailb.lb.redis.RedisKeys;
import io.ailb.lb.request.RequestInfo;
import io.ailb.lb.util.TestConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PrefixCachePolicyTest {
    private static final RedisKeys KEYS = RedisKeys.of(ROUTE, CLUSTER);
    private static final String CONVERSATION = "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"s\"},"
            + "{\"role\":\"user\",\"content\":\"q1\"},{\"role\":\"assistant\",\"content\":\"a1\"},"
            + "{\"role\":\"user\",\"content\":\"q2\"}]}";

    private static PrefixCachePolicy policy(String extraFields) throws ConfigException {
        return new PrefixCachePolicy(TestConfig.view(REDIS + extraFields + "}"));
    }

    private static RedisCommand command(RequestInfo request) throws ConfigException {
        return policy("")
                .select(ctx(up("10.0.0.1:8000"), up("10.0.0.2:8000"))
                        .request(request)
                        .build())
                .redisCommand();
    }

    @Test
    void itReadsTheRequestBodyWithItsPrompt() throws ConfigException {
        assertTrue(policy("").readsBody());
        assertTrue(policy("").readsPrompt());
    }

    @Test
    void eachConversationBlockBecomesOnePrefixKeyInOrder() throws ConfigException {
        RequestInfo request = chat(CONVERSATION);
        List<String> expected =
                new ArrayList<>(list(KEYS.inflight(), KEYS.cleaned(), KEYS.leases(), KEYS.leaseHosts()));
        for (String hash : request.prefixHashes()) {
            expected.add(KEYS.prefix(hash));
        }
        assertEquals(6, expected.size());
        assertEquals(expected, command(request).keys());
    }

    @Test
    void aBodylessRequestIsBalancedByInFlightCountAlone() throws ConfigException {
        assertEquals(
                list(KEYS.inflight(), KEYS.cleaned(), KEYS.leases(), KEYS.leaseHosts()),
                command(RequestInfo.noBody()).keys());
    }

    @Test
    void anUnparseableBodyIsBalancedByInFlightCountAlone() throws ConfigException {
        assertEquals(
                list(KEYS.inflight(), KEYS.cleaned(), KEYS.leases(), KEYS.leaseHosts()),
                command(chat("not json")).keys());
    }

    @Test
    void itSharesTheInFlightHashWithGlobalLeastRequest() throws ConfigException {
        RedisCommand glr = new GlobalLeastRequestPolicy(TestConfig.view(REDIS + "}"))
                .select(ctx(up("10.0.0.1:8000")).build())
                .redisCommand();
        assertEquals(glr.keys().get(0), command(chat(CONVERSATION)).keys().get(0));
    }

    @Test
    void theDefaultPrefixTtlIsHalfAnHour() throws ConfigException {
        assertEquals("1800", command(chat(CONVERSATION)).args().get(4));
    }

    @Test
    void redisKeyTtlSetsThePrefixTtl() throws ConfigException {
        RedisCommand command = policy(",\"redisKeyTTL\":60")
                .select(ctx(up("10.0.0.1:8000")).build())
                .redisCommand();
        assertEquals("60", command.args().get(4));
    }

    @Test
    void leaseTtlReachesTheScriptAndTheCallCarriesItsLeaseRelease() throws ConfigException {
        Step redis = policy(",\"leaseTTL\":120")
                .select(ctx(up("10.0.0.1:8000")).request(chat(CONVERSATION)).build());
        assertEquals("120", redis.redisCommand().args().get(6));
        assertEquals(
                list(redis.redisCommand().args().get(5)),
                redis.releases().get(0).command().args());
        assertTrue(redis.onReply(ok("10.0.0.1:8000", 1, 2)).releases().isEmpty());
    }

    @Test
    void aMatchedPrefixIsReportedAsACacheHitWithItsDepth() throws ConfigException {
        Step step = policy("")
                .select(ctx(up("10.0.0.1:8000")).request(chat(CONVERSATION)).build())
                .onReply(ok("10.0.0.1:8000", 1, 2));
        assertEquals("true", step.attributes().get(Step.ATTR_CACHE_HIT));
        assertEquals("2", step.attributes().get(Step.ATTR_PREFIX_LENGTH));
        assertEquals(2, step.prefixLength());
    }

    @Test
    void noMatchedPrefixIsReportedAsACacheMiss() throws ConfigException {
        Step step = policy("")
                .select(ctx(up("10.0.0.1:8000")).request(chat(CONVERSATION)).build())
                .onReply(ok("10.0.0.1:8000", 1, 0));
        assertEquals("false", step.attributes().get(Step.ATTR_CACHE_HIT));
        assertEquals("0", step.attributes().get(Step.ATTR_PREFIX_LENGTH));
        assertEquals(0, step.prefixLength());
    }

    @Test
    void aZeroKeyTtlIsRejectedWithItsValue() {
        ConfigException e = assertThrows(ConfigException.class, () -> policy(",\"redisKeyTTL\":0"));
        assertEquals("lb_config.redisKeyTTL=0: must be an integer in [1, 2147483647]", e.getMessage());
    }
}
