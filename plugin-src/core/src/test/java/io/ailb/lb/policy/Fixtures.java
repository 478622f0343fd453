package io.ailb.lb.policy;

import io.ailb.codec.resp.RespValue;
import io.ailb.lb.model.Endpoint;
import io.ailb.lb.request.RequestInfo;
import io.ailb.lb.request.RequestParser;
import io.ailb.lb.util.Rng;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/** Fake request contexts and Redis replies for policy tests. */
public final class Fixtures {
    public static final String ROUTE = "ai-route";
    public static final String CLUSTER = "outbound|8000||vllm.static";
    public static final String REDIS = "{\"serviceFQDN\":\"redis.static\",\"servicePort\":6379";

    private Fixtures() {}

    public static Endpoint up(String address) {
        return new Endpoint(address, true, null);
    }

    public static Endpoint up(String address, String metrics) {
        return new Endpoint(address, true, metrics);
    }

    public static Endpoint down(String address) {
        return new Endpoint(address, false, null);
    }

    public static RequestContext.Builder ctx(Endpoint... endpoints) {
        return RequestContext.builder()
                .routeName(ROUTE)
                .clusterName(CLUSTER)
                .authority("llm.example")
                .endpoints(Arrays.asList(endpoints))
                .nowMillis(1_000_000)
                .random(new Rng(1));
    }

    public static RequestInfo chat(String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        return RequestParser.parse("application/json", null, body, body.length);
    }

    /** {@code json} read as the flow reads it for {@code policy}: with the policy's block boundaries. */
    public static RequestInfo chatFor(LoadBalancingPolicy policy, String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        return RequestParser.parse("application/json", null, body, body.length, true, policy.blockBoundaries());
    }

    public static RespValue ok(String host, long count, long depth) {
        return RespValue.array(
                RespValue.bulkString("ok"),
                RespValue.bulkString(host),
                RespValue.integer(count),
                RespValue.integer(depth));
    }

    public static RespValue full(String host, long count) {
        return RespValue.array(RespValue.bulkString("full"), RespValue.bulkString(host), RespValue.integer(count));
    }

    public static List<String> list(String... values) {
        return Arrays.asList(values);
    }
}
