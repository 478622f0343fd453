package io.ailb.lb.policy.cacheaware;

import static io.ailb.lb.policy.Fixtures.CLUSTER;
import static io.ailb.lb.policy.Fixtures.REDIS;
import static io.ailb.lb.policy.Fixtures.ROUTE;
import static io.ailb.lb.policy.Fixtures.chat;
import static io.ailb.lb.policy.Fixtures.chatFor;
import static io.ailb.lb.policy.Fixtures.ctx;
import static io.ailb.lb.policy.Fixtures.down;
import static io.ailb.lb.policy.Fixtures.full;
import static io.ailb.lb.policy.Fixtures.list;
import static io.ailb.lb.policy.Fixtures.up;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.hash.PrefixHash;
import io.ailb.codec.resp.RespValue;
import io.ailb.lb.config.ConfigException;
import io.ailb.lb.policy.FallbackReason;
import io.ailb.lb.policy.Fixtures;
import io.ailb.lb.policy.LoadBalancingPolicy;
import io.ailb.lb.policy.PolicyRegistry;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.policy.Step;
import io.ailb.lb.redis.RedisCommand;
import io.ailb.lb.redis.RedisKeys;
import io.ailb.lb.request.RequestInfo;
import io.ailb.lb.request.RequestParser;
import io.ailb.lb.util.TestConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CacheAwarePolicyTest {
    private static final RedisKeys KEYS = RedisKeys.of(ROUTE, CLUSTER);
    private static final String CONVERSATION = "{\"model\":\"m\",\"max_tokens\":77,\"messages\":["
            + "{\"role\":\"system\",\"content\":\"ssssssssssssssss\"},{\"role\":\"user\",\"content\":\"q1q1\"},"
            + "{\"role\":\"assistant\",\"content\":\"a1a1a1a1\"},{\"role\":\"user\",\"content\":\"q2q2\"}]}";

    private static CacheAwarePolicy policy(String extraFields) throws ConfigException {
        return new CacheAwarePolicy(TestConfig.view(REDIS + extraFields + "}"));
    }

    private static Step select(CacheAwarePolicy policy, RequestInfo request) {
        return policy.select(ctx(up("10.0.0.1:8000"), up("10.0.0.2:8000"), down("10.0.0.3:8000"))
                .request(request)
                .build());
    }

    private static RedisCommand command(String extra, RequestInfo request) throws ConfigException {
        return select(policy(extra), request).redisCommand();
    }

    private static RespValue ok(String host, long count, long depth, long matched, long cost, long work) {
        return ok(host, count, depth, matched, cost, work, 0);
    }

    private static RespValue ok(
            String host, long count, long depth, long matched, long cost, long work, long firstTokenInMillis) {
        return RespValue.array(
                RespValue.bulkString("ok"),
                RespValue.bulkString(host),
                RespValue.integer(count),
                RespValue.integer(depth),
                RespValue.integer(matched),
                RespValue.integer(cost),
                RespValue.integer(work),
                RespValue.integer(firstTokenInMillis));
    }

    private static String configError(String extra) {
        return assertThrows(ConfigException.class, () -> policy(extra)).getMessage();
    }

    @Test
    void itIsRegisteredReadsTheBodyAndTalksToItsRedis() throws ConfigException {
        LoadBalancingPolicy policy =
                PolicyRegistry.create(TestConfig.root("{\"lb_policy\":\"cache_aware\",\"lb_config\":" + REDIS + "}}"));
        assertEquals("cache_aware", policy.name());
        assertTrue(policy.readsBody());
        assertTrue(policy.readsPrompt());
        assertEquals("outbound|6379||redis.static", policy.redisTargets().get(0).clusterName());
    }

    @Test
    void oneScriptCallCarriesEveryKeyAndTheRequestFacts() throws ConfigException {
        RequestInfo request = chatFor(policy(""), CONVERSATION);
        RedisCommand call = command("", request);
        assertEquals(CacheAwareScripts.CACHE_AWARE, call.script());

        List<String> keys = new ArrayList<>(list(
                KEYS.inflight(),
                KEYS.load(),
                KEYS.cacheAwareCleaned(),
                KEYS.cacheAwareLeases(),
                KEYS.cacheAwareLeaseInfo(),
                KEYS.cacheAwareRouted(),
                KEYS.cacheAwareWritten(),
                KEYS.cacheAwareRecent(),
                KEYS.cacheAwareHeld(),
                KEYS.cacheAwareWaiting(),
                KEYS.cacheAwareUnseenFirstTokens(),
                KEYS.cacheAwareDrain()));
        for (String hash : request.prefixHashes()) {
            keys.add(KEYS.holders(hash));
        }
        assertEquals(keys, call.keys());

        List<String> args = call.args();
        assertEquals(list("0", "3600", "7200", "1800"), args.subList(1, 5));
        assertEquals("600", args.get(6));
        // Blocks (system 16 chars) | (user 4) | (assistant 8 + user 4): tokens 4, 5, 8; the engine that answered the
        // prompt ending at the user block holds 28 characters, 7 tokens.
        assertEquals(
                list(
                        "60",
                        "4",
                        "8",
                        "8",
                        "0",
                        "3",
                        "0",
                        "0.25",
                        "1000000",
                        "0",
                        "10000",
                        "4",
                        "5",
                        "8",
                        "4",
                        "7",
                        "8",
                        "2",
                        "10.0.0.1:8000",
                        "10.0.0.2:8000",
                        "10.0.0.3:8000"),
                args.subList(7, args.size()));
        assertEquals(java.util.Arrays.asList(4, 5, 8), request.prefixTokens());
    }

    @Test
    void theScriptJudgesEvictionsByTheSmallestSizeTheHealthyInstancesReportUnlessOneIsConfigured()
            throws ConfigException {
        String small = "vllm:cache_config_info{block_size=\"16\",num_gpu_blocks=\"1000\"} 1.0\n";
        String large = "sglang:max_total_num_tokens 50000\n";
        RequestContext context = ctx(up("10.0.0.1:8000", large), up("10.0.0.2:8000", small), down("10.0.0.3:8000"))
                .request(chat(CONVERSATION))
                .build();
        assertEquals("16000", policy("").select(context).redisCommand().args().get(13));
        assertEquals(
                "70000",
                policy(",\"kvCacheTokens\":70000")
                        .select(context)
                        .redisCommand()
                        .args()
                        .get(13));
        assertEquals("0", command("", chat(CONVERSATION)).args().get(13), "no instance reports its size");
    }

    @Test
    void theSizeOfAnInstanceWithoutMetricsInItsInfoComesFromScrapingIt() throws ConfigException {
        CacheAwarePolicy policy = policy("");
        RequestContext context =
                ctx(up("10.0.0.1:8000")).request(chat(CONVERSATION)).build();
        assertEquals("0", policy.select(context).redisCommand().args().get(13));
        assertEquals(1000, policy.tickPeriodMillis());
        assertEquals("10.0.0.1:8000", policy.onTick(1_000_500).get(0).host());
        policy.onScrapeResult("10.0.0.1:8000", 200, "sglang:max_total_num_tokens 9000\n", 1_000_600);
        assertEquals("9000", policy.select(context).redisCommand().args().get(13));
        CacheAwarePolicy configured = policy(",\"kvCacheTokens\":5000");
        assertEquals("5000", configured.select(context).redisCommand().args().get(13));
        assertEquals(
                "10.0.0.1:8000",
                configured.onTick(1_000_500).get(0).host(),
                "a configured size still scrapes, for the first tokens");
    }

    private static String firstTokens(double seconds, int count) {
        return "vllm:time_to_first_token_seconds_sum " + seconds + "\nvllm:time_to_first_token_seconds_count " + count
                + "\n";
    }

    /**
     * The rate {@code policy} sends for an unstreamed request once the instance reported 60 first tokens of 0.2 s
     * each, after 60 unstreamed requests each expected in 300 ms at the rate it sent then.
     */
    private static double rateAfterTeaching(CacheAwarePolicy policy) {
        RequestContext.Builder before = ctx(up("10.0.0.1:8000", firstTokens(0, 0)));
        for (int i = 0; i < 60; i++) {
            Step call = policy.select(
                    before.request(chat(CONVERSATION)).nowMillis(i).build());
            call.onReply(ok("10.0.0.1:8000", 1, 0, 0, 3_000, 3_000, 300));
        }
        RequestContext after = ctx(up("10.0.0.1:8000", firstTokens(12, 60)))
                .request(chat(CONVERSATION))
                .nowMillis(ReportedMetrics.REREAD_MILLIS)
                .build();
        return Double.parseDouble(policy.select(after).redisCommand().args().get(17));
    }

    @Test
    void unstreamedRequestsAreExpectedAtTheRateTheEnginesFirstTokensImply() throws ConfigException {
        assertEquals(
                "10000",
                command("", chat(CONVERSATION)).args().get(17),
                "the configured rate until the instances report");
        // Expected in 0.3 s, came in 0.2 s: the rate rises by the square root of 1.5.
        assertEquals(10_000 * Math.sqrt(1.5), rateAfterTeaching(policy("")), 1e-3);
        assertEquals(
                3_000,
                rateAfterTeaching(policy(",\"learnPrefillRate\":false,\"prefillTokensPerSecond\":3000")),
                "learning off: the configured rate stays");
    }

    @Test
    void theRecentWorkShareGoesToTheScriptAndIsRefusedOutOfRange() throws ConfigException {
        assertEquals("0.25", command("", chat(CONVERSATION)).args().get(14), "the default");
        assertEquals(
                "0",
                command(",\"recentWorkShare\":0", chat(CONVERSATION)).args().get(14),
                "off");
        assertEquals(
                "1.5",
                command(",\"recentWorkShare\":1.5", chat(CONVERSATION)).args().get(14));
        ConfigException refused = assertThrows(ConfigException.class, () -> policy(",\"recentWorkShare\":11"));
        assertEquals("lb_config.recentWorkShare=11: must be a number in [0, 10]", refused.getMessage());
    }

    @Test
    void instancesAreScrapedAtTheConfiguredMetricsPath() throws ConfigException {
        CacheAwarePolicy policy = policy(",\"metricsPath\":\"/engine/metrics\"");
        policy.select(ctx(up("10.0.0.1:8000")).request(chat(CONVERSATION)).build());
        assertEquals("/engine/metrics", policy.onTick(1_000_500).get(0).path());
        ConfigException refused = assertThrows(ConfigException.class, () -> policy(",\"metricsPath\":\"metrics\""));
        assertEquals("lb_config.metricsPath", refused.path());
    }

    @Test
    void aSharedSystemPromptIsABlockOfItsOwn() throws ConfigException {
        assertEquals(
                RequestParser.BlockBoundaries.EVERY_MESSAGE_BUT_ASSISTANT,
                policy("").blockBoundaries());
    }

    @Test
    void aBodylessRequestHasNoPromptAndNoBlocks() throws ConfigException {
        RedisCommand call = command("", RequestInfo.noBody());
        assertEquals(12, call.keys().size());
        assertEquals(
                list("0", "8", "0", "0", "0", "0.25", "1000000", "0", "10000", "2"),
                call.args().subList(9, 19));
    }

    @Test
    void anUnparseableBodyIsWeighedByItsSize() throws ConfigException {
        RedisCommand call = command("", RequestInfo.unparsed(4001));
        assertEquals(12, call.keys().size());
        assertEquals(list("1001", "8", "0", "0"), call.args().subList(9, 13));
    }

    private static RedisCommand commandWithHeaders(String extra, RequestInfo request, Map<String, String> headers)
            throws ConfigException {
        return policy(extra)
                .select(ctx(up("10.0.0.1:8000"), up("10.0.0.2:8000"))
                        .request(request)
                        .requestHeaders(headers::get)
                        .build())
                .redisCommand();
    }

    @Test
    void aRequestNamingItsSessionInTheConfiguredHeaderCarriesTheSessionKey() throws ConfigException {
        String session = "conversation-42";
        RedisCommand call = commandWithHeaders(
                ",\"sessionHeader\":\"X-Session-Id\"", RequestInfo.unparsed(4001), Map.of("x-session-id", session));
        byte[] id = session.getBytes(StandardCharsets.UTF_8);
        assertEquals(13, call.keys().size());
        assertEquals(
                KEYS.cacheAwareSession(PrefixHash.hexOf(id, 0, id.length)),
                call.keys().get(12));
        assertEquals(list("1001", "8", "1", "0"), call.args().subList(9, 13));
    }

    @Test
    void withoutTheHeaderOrWithoutTheSettingThereIsNoSession() throws ConfigException {
        RedisCommand absent =
                commandWithHeaders(",\"sessionHeader\":\"x-session-id\"", RequestInfo.unparsed(40), Map.of());
        RedisCommand off = commandWithHeaders("", RequestInfo.unparsed(40), Map.of("x-session-id", "s"));
        for (RedisCommand call : List.of(absent, off)) {
            assertEquals(12, call.keys().size());
            assertEquals("0", call.args().get(11));
        }
    }

    @Test
    void aSessionHeaderThatIsNoHeaderNameIsRefused() {
        String message = configError(",\"sessionHeader\":\"x session\"");
        assertTrue(message.contains("sessionHeader"), message);
        assertTrue(message.contains("header name"), message);
    }

    @Test
    void theConfiguredWeightsTtlsAndCapAreSent() throws ConfigException {
        List<String> args = command(
                        ",\"inflightTokens\":12.5,\"overloadQueueRequests\":0,\"redisKeyTTL\":60,"
                                + "\"maxRequestCount\":4,\"cleanInterval\":0,\"leaseTTL\":90",
                        chat(CONVERSATION))
                .args();
        assertEquals(list("4", "0", "3600", "60"), args.subList(1, 5));
        assertEquals(list("90", "12.5", "0"), args.subList(6, 9));
    }

    @Test
    void theReleaseTakesTheLeaseOfTheCall() throws ConfigException {
        Step step = select(policy(""), chat(CONVERSATION));
        assertEquals(1, step.releases().size());
        RedisCommand release = step.releases().get(0).command();
        assertEquals(CacheAwareScripts.CACHE_AWARE_RELEASE, release.script());
        assertEquals(
                list(
                        KEYS.inflight(),
                        KEYS.load(),
                        KEYS.cacheAwareLeases(),
                        KEYS.cacheAwareLeaseInfo(),
                        KEYS.cacheAwareHeld(),
                        KEYS.cacheAwareWaiting(),
                        KEYS.cacheAwareWritten()),
                release.keys());
        assertEquals(step.redisCommand().args().get(5), release.args().get(0));
        String keyTtl = step.redisCommand().args().get(3);
        assertEquals(list("0", keyTtl), release.args().subList(1, 3), "no KV size known: no ended lease kept");

        // With the KV size known the ended lease is kept for leaseTTL, its keys for their TTL.
        RedisCommand judged = select(policy(",\"kvCacheTokens\":1000,\"leaseTTL\":90"), chat(CONVERSATION))
                .releases()
                .get(0)
                .command();
        assertEquals(list("90", keyTtl), judged.args().subList(1, 3));
    }

    @Test
    void anUnstreamedRequestCarriesWhenItsFirstTokenIsExpected() throws ConfigException {
        Step call = select(policy(""), chat(CONVERSATION));
        assertEquals(
                "150",
                call.onReply(ok("10.0.0.2:8000", 1, 0, 0, 200, 200, 150))
                        .attributes()
                        .get(CacheAwarePolicy.ATTR_FIRST_TOKEN_IN_MS));
        assertFalse(
                call.onReply(ok("10.0.0.2:8000", 1, 0, 0, 200, 200, 0))
                        .attributes()
                        .containsKey(CacheAwarePolicy.ATTR_FIRST_TOKEN_IN_MS),
                "a streamed request's is seen, not expected");
        assertEquals(
                "-1",
                call.onReply(ok("10.0.0.2:8000", 1, 0, 0, 200, 200, -1))
                        .attributes()
                        .get(CacheAwarePolicy.ATTR_FIRST_TOKEN_IN_MS),
                "routed under overload: counted until its end");
    }

    @Test
    void aReplyRoutesWithTheDecisionAttributesAndNoSecondRelease() throws ConfigException {
        Step call = select(policy(""), chat(CONVERSATION));
        Step step = call.onReply(ok("10.0.0.2:8000", 3, 2, 8, 40, 162));
        assertEquals(Step.Kind.ROUTE, step.kind());
        assertEquals("10.0.0.2:8000", step.host());
        assertEquals("cache_aware", step.attributes().get(Step.ATTR_POLICY));
        assertEquals("true", step.attributes().get(Step.ATTR_CACHE_HIT));
        assertEquals("2", step.attributes().get(Step.ATTR_PREFIX_LENGTH));
        assertEquals(2, step.prefixLength());
        assertEquals("3", step.attributes().get(Step.ATTR_INFLIGHT));
        assertEquals("8", step.attributes().get(CacheAwarePolicy.ATTR_MATCHED_TOKENS));
        assertEquals("40", step.attributes().get(CacheAwarePolicy.ATTR_COST));
        assertEquals("162", step.attributes().get(CacheAwarePolicy.ATTR_WORK));
        assertTrue(step.releases().isEmpty());

        // The first response byte takes the request's 162 queued tokens off the host and the request off its waiting
        // ones: same lease as the call, and the gateway's clock when it is sent.
        assertEquals(1, step.firstResponseCalls().size());
        RedisCommand firstToken =
                step.firstResponseCalls().get(0).sentAt(1_234_567).command();
        assertEquals(CacheAwareScripts.CACHE_AWARE_FIRST_TOKEN, firstToken.script());
        assertEquals(
                list(
                        KEYS.load(),
                        KEYS.cacheAwareLeases(),
                        KEYS.cacheAwareLeaseInfo(),
                        KEYS.cacheAwareWaiting(),
                        KEYS.cacheAwareRouted(),
                        KEYS.cacheAwareDrain()),
                firstToken.keys());
        assertEquals(list(call.redisCommand().args().get(5), "1234567"), firstToken.args());
    }

    @Test
    void aFullyCachedRequestQueuesNothingButWaitsForItsFirstToken() throws ConfigException {
        Step step = select(policy(""), chat(CONVERSATION)).onReply(ok("10.0.0.2:8000", 3, 2, 8, 40, 0));
        assertEquals(Step.Kind.ROUTE, step.kind());
        assertEquals(1, step.firstResponseCalls().size());
    }

    @Test
    void aStreamedRequestIsTimed() throws ConfigException {
        assertEquals("0", command("", chat(CONVERSATION)).args().get(16));
        RequestInfo streamed = chatFor(policy(""), CONVERSATION.replaceFirst("\\{", "{\"stream\":true,"));
        assertEquals("1", command("", streamed).args().get(16));
    }

    @Test
    void aMissIsReportedAsNoCacheHit() throws ConfigException {
        Step step = select(policy(""), chat(CONVERSATION)).onReply(ok("10.0.0.1:8000", 1, 0, 0, 8, 162));
        assertEquals("false", step.attributes().get(Step.ATTR_CACHE_HIT));
        assertEquals("0", step.attributes().get(Step.ATTR_PREFIX_LENGTH));
        assertEquals(0, step.prefixLength());
    }

    @Test
    void aFullClusterIsRejectedWith429() throws ConfigException {
        Step step = select(policy(",\"maxRequestCount\":2"), chat(CONVERSATION)).onReply(full("10.0.0.1:8000", 2));
        assertEquals(Step.Kind.REJECT, step.kind());
        assertEquals(429, step.status());
        assertEquals("2", step.attributes().get(Step.ATTR_INFLIGHT));
    }

    @Test
    void aHostOutsideTheHealthyListOrABadReplyFallsBack() throws ConfigException {
        Step step = select(policy(""), chat(CONVERSATION));
        assertEquals(
                FallbackReason.UNKNOWN_HOST,
                step.onReply(ok("10.0.0.3:8000", 1, 0, 0, 0, 1)).reason());
        assertEquals(
                FallbackReason.REDIS_BAD_REPLY,
                step.onReply(Fixtures.ok("10.0.0.1:8000", 1, 0)).reason(),
                "select.lua's shape is not ours");
        assertEquals(
                FallbackReason.REDIS_BAD_REPLY,
                step.onReply(RespValue.integer(1)).reason());
    }

    @Test
    void noHealthyHostOrNoRouteFallsBackWithoutRedis() throws ConfigException {
        CacheAwarePolicy policy = policy("");
        assertEquals(
                FallbackReason.NO_HEALTHY_HOST,
                policy.select(ctx(down("10.0.0.1:8000"))
                                .request(chat(CONVERSATION))
                                .build())
                        .reason());
        assertEquals(
                FallbackReason.NO_ROUTE_INFO,
                policy.select(ctx(up("10.0.0.1:8000"))
                                .routeName(null)
                                .request(chat(CONVERSATION))
                                .build())
                        .reason());
    }

    @Test
    void everyCallHasItsOwnLease() throws ConfigException {
        CacheAwarePolicy policy = policy("");
        RequestContext context =
                ctx(up("10.0.0.1:8000")).request(chat(CONVERSATION)).build();
        String first = policy.select(context).redisCommand().args().get(5);
        String second = policy.select(context).redisCommand().args().get(5);
        assertFalse(first.equals(second));
    }

    @Test
    void invalidFieldsAreRefusedWithTheirPath() {
        assertEquals(
                "lb_config.inflightTokens=-1: must be a number in [0, 1000000]", configError(",\"inflightTokens\":-1"));
        assertEquals(
                "lb_config.inflightTokens=lots: must be a number in [0, 1000000]",
                configError(",\"inflightTokens\":\"lots\""));
        assertEquals(
                "lb_config.overloadQueueRequests=-0.5: must be a number in [0, 1000000]",
                configError(",\"overloadQueueRequests\":-0.5"));
        assertEquals(
                "lb_config.redisKeyTTL=0: must be an integer in [1, 2147483647]", configError(",\"redisKeyTTL\":0"));
        assertEquals(
                "lb_config.maxRequestCount=-1: must be an integer in [0, 2147483647]",
                configError(",\"maxRequestCount\":-1"));
        assertEquals("lb_config.leaseTTL=0: must be an integer in [1, 31536000]", configError(",\"leaseTTL\":0"));
        assertEquals(
                "lb_config.servicePort: is required",
                assertThrows(
                                ConfigException.class,
                                () -> new CacheAwarePolicy(TestConfig.view("{\"serviceFQDN\":\"redis.static\"}")))
                        .getMessage());
    }
}
