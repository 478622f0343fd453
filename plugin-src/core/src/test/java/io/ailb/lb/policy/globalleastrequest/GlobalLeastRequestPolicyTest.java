package io.ailb.lb.policy.globalleastrequest;

import static io.ailb.lb.policy.Fixtures.CLUSTER;
import static io.ailb.lb.policy.Fixtures.REDIS;
import static io.ailb.lb.policy.Fixtures.ROUTE;
import static io.ailb.lb.policy.Fixtures.ctx;
import static io.ailb.lb.policy.Fixtures.down;
import static io.ailb.lb.policy.Fixtures.full;
import static io.ailb.lb.policy.Fixtures.list;
import static io.ailb.lb.policy.Fixtures.ok;
import static io.ailb.lb.policy.Fixtures.up;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.resp.RespValue;
import io.ailb.lb.config.ConfigException;
import io.ailb.lb.policy.FallbackReason;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.policy.Step;
import io.ailb.lb.policy.inflight.InflightScripts;
import io.ailb.lb.redis.RedisCall;
import io.ailb.lb.redis.RedisCommand;
import io.ailb.lb.redis.RedisKeys;
import io.ailb.lb.redis.RedisTarget;
import io.ailb.lb.util.TestConfig;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GlobalLeastRequestPolicyTest {
    private static final RedisKeys KEYS = RedisKeys.of(ROUTE, CLUSTER);

    private static GlobalLeastRequestPolicy policy(String extraFields) throws ConfigException {
        return new GlobalLeastRequestPolicy(TestConfig.view(REDIS + extraFields + "}"));
    }

    private static Step select(String extraFields) throws ConfigException {
        return policy(extraFields)
                .select(ctx(up("10.0.0.1:8000"), down("10.0.0.2:8000"), up("10.0.0.3:8000"))
                        .build());
    }

    @Test
    void itDoesNotNeedTheRequestBody() throws ConfigException {
        assertFalse(policy("").readsBody());
    }

    @Test
    void itAsksTheConfiguredRedis() throws ConfigException {
        Step step = select(",\"password\":\"pw\",\"database\":1");
        assertEquals(Step.Kind.REDIS, step.kind());
        assertEquals(new RedisTarget("redis.static", 6379, "", "pw", 3000, 1), step.redisTarget());
    }

    @Test
    void itDeclaresItsRedisForInitialisation() throws ConfigException {
        assertEquals(
                Collections.singletonList(new RedisTarget("redis.static", 6379, "", "", 3000, 0)),
                policy("").redisTargets());
    }

    @Test
    void theScriptGetsTheRouteKeysAndHealthyThenUnhealthyHosts() throws ConfigException {
        RedisCommand command = select("").redisCommand();
        assertEquals(InflightScripts.SELECT, command.script());
        assertEquals(list(KEYS.inflight(), KEYS.cleaned(), KEYS.leases(), KEYS.leaseHosts()), command.keys());
        assertEquals(
                list("2", "10.0.0.1:8000", "10.0.0.3:8000", "10.0.0.2:8000"),
                command.args().subList(7, command.args().size()));
    }

    @Test
    void maxRequestCountAndTheCleanIntervalInSecondsReachTheScript() throws ConfigException {
        RedisCommand command =
                select(",\"maxRequestCount\":8,\"cleanInterval\":2").redisCommand();
        assertEquals(list("8", "120", "3600"), command.args().subList(1, 4));
    }

    @Test
    void theDecisionCallCarriesTheReleaseOfItsOwnLeaseFromTheStart() throws ConfigException {
        Step redis = select("");
        String leaseId = redis.redisCommand().args().get(5);
        assertTrue(leaseId.matches("[0-9a-f]{16}"), leaseId);
        assertEquals(1, redis.releases().size());
        RedisCall release = redis.releases().get(0);
        assertEquals(new RedisTarget("redis.static", 6379, "", "", 3000, 0), release.target());
        assertEquals(InflightScripts.RELEASE, release.command().script());
        assertEquals(
                list(KEYS.inflight(), KEYS.leases(), KEYS.leaseHosts()),
                release.command().keys());
        assertEquals(list(leaseId), release.command().args());
    }

    @Test
    void theChosenHostIsRoutedToAndTheRouteAddsNoSecondRelease() throws ConfigException {
        Step step = select("").onReply(ok("10.0.0.3:8000", 4, 0));
        assertEquals(Step.Kind.ROUTE, step.kind());
        assertEquals("10.0.0.3:8000", step.host());
        assertTrue(step.releases().isEmpty());
    }

    @Test
    void everyRequestTakesADifferentLease() throws ConfigException {
        GlobalLeastRequestPolicy policy = policy("");
        RequestContext ctx = ctx(up("10.0.0.1:8000")).build();
        Set<String> leases = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            leases.add(policy.select(ctx).redisCommand().args().get(5));
        }
        assertEquals(100, leases.size());
    }

    @Test
    void theLeaseTtlDefaultsToTenMinutesAndIsConfigurable() throws ConfigException {
        assertEquals("600", select("").redisCommand().args().get(6));
        assertEquals("90", select(",\"leaseTTL\":90").redisCommand().args().get(6));
    }

    @Test
    void aZeroLeaseTtlIsRejectedWithItsValue() {
        ConfigException e = assertThrows(ConfigException.class, () -> policy(",\"leaseTTL\":0"));
        assertEquals("lb_config.leaseTTL=0: must be an integer in [1, 31536000]", e.getMessage());
    }

    @Test
    void theRouteCarriesThePolicyNameAndInFlightCount() throws ConfigException {
        Step step = select("").onReply(ok("10.0.0.3:8000", 4, 0));
        assertEquals("global_least_request", step.attributes().get(Step.ATTR_POLICY));
        assertEquals("4", step.attributes().get(Step.ATTR_INFLIGHT));
    }

    @Test
    void aFullClusterIsRejectedWith429AndNothingToRelease() throws ConfigException {
        Step step = select(",\"maxRequestCount\":2").onReply(full("10.0.0.1:8000", 2));
        assertEquals(Step.Kind.REJECT, step.kind());
        assertEquals(429, step.status());
        assertEquals("Exceeded maximum request limit from ai-load-balancer.", step.body());
        assertTrue(step.releases().isEmpty());
    }

    @Test
    void aReplyOfAnUnexpectedShapeFallsBack() throws ConfigException {
        Step step = select("").onReply(RespValue.bulkString("10.0.0.1:8000"));
        assertEquals(FallbackReason.REDIS_BAD_REPLY, step.reason());
    }

    @Test
    void aHostOutsideTheHealthyListFallsBackAndTheCallsLeaseStillCoversIt() throws ConfigException {
        Step redis = select("");
        Step step = redis.onReply(ok("10.9.9.9:8000", 1, 0));
        assertEquals(FallbackReason.UNKNOWN_HOST, step.reason());
        assertTrue(step.releases().isEmpty());
        assertEquals(1, redis.releases().size(), "released by lease at stream end");
    }

    @Test
    void noHealthyHostFallsBackWithoutCallingRedis() throws ConfigException {
        Step step = policy("").select(ctx(down("10.0.0.1:8000")).build());
        assertEquals(FallbackReason.NO_HEALTHY_HOST, step.reason());
    }

    @Test
    void anUnknownRouteNameFallsBackWithoutCallingRedis() throws ConfigException {
        Step step = policy("").select(ctx(up("10.0.0.1:8000")).routeName(null).build());
        assertEquals(FallbackReason.NO_ROUTE_INFO, step.reason());
    }

    @Test
    void aNegativeCleanIntervalIsRejectedWithItsValue() {
        ConfigException e = assertThrows(ConfigException.class, () -> policy(",\"cleanInterval\":-1"));
        assertEquals("lb_config.cleanInterval=-1: must be an integer in [0, 525600]", e.getMessage());
    }

    @Test
    void aNonNumericMaxRequestCountIsRejectedWithItsValue() {
        ConfigException e = assertThrows(ConfigException.class, () -> policy(",\"maxRequestCount\":\"many\""));
        assertEquals("lb_config.maxRequestCount=many: must be an integer in [0, 2147483647]", e.getMessage());
    }

    @Test
    void enableDetailLogMustBeABoolean() {
        ConfigException e = assertThrows(ConfigException.class, () -> policy(",\"enableDetailLog\":3"));
        assertEquals("lb_config.enableDetailLog=3: must be true or false", e.getMessage());
    }
}
