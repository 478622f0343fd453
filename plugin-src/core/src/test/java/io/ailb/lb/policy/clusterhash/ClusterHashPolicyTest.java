package io.ailb.lb.policy.clusterhash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.policy.RequestContext;
import io.ailb.lb.policy.Step;
import io.ailb.lb.util.Rng;
import io.ailb.lb.util.TestConfig;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClusterHashPolicyTest {
    private static final String A = "outbound|80||qwen-a.dns";
    private static final String B = "outbound|80||qwen-b.dns";
    private static final String C = "outbound|80||qwen-c.dns";

    private static ClusterHashPolicy policy(String lbConfig) throws ConfigException {
        return new ClusterHashPolicy(TestConfig.view(lbConfig));
    }

    private static String weighted(int a, int b, int c) {
        return "{\"clusters\":[{\"cluster\":\"" + A + "\",\"weight\":" + a + "},{\"cluster\":\"" + B + "\",\"weight\":"
                + b + "},{\"cluster\":\"" + C + "\",\"weight\":" + c + "}]}";
    }

    private static RequestContext withHeaders(Map<String, String> headers) {
        return RequestContext.builder()
                .routeName("r")
                .random(new Rng(1))
                .requestHeaders(headers::get)
                .build();
    }

    /** Published FNV-1a 32-bit test vectors (Fowler, Noll, Vo). */
    @Test
    void theHashIsFnv1a32() {
        assertEquals(0x811c9dc5, ClusterHashPolicy.fnv1a32(new byte[0]));
        assertEquals(0xe40c292c, ClusterHashPolicy.fnv1a32("a".getBytes(StandardCharsets.UTF_8)));
        assertEquals(0xbf9cf968, ClusterHashPolicy.fnv1a32("foobar".getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * The Go plugin's mapping: slot = FNV-1a(value) mod 100 over the hash as an unsigned 32-bit number, slots handed
     * out in list order by weight. "foobar" hashes to 0xbf9cf968 = 3214735720, slot 20; "a" to 0xe40c292c =
     * 3826002220, slot 20 too; "b" to 0xe70c2de5 = 3876335077, slot 77.
     */
    @Test
    void aValueLandsInTheSlotOfItsUnsignedHashModulo100() throws ConfigException {
        ClusterHashPolicy policy = policy(weighted(20, 57, 23));
        assertEquals(B, policy.serviceFor("foobar"), "slot 20 is the first of B's (A has 0-19)");
        assertEquals(B, policy.serviceFor("a"));
        assertEquals(C, policy.serviceFor("b"), "slot 77 is the first of C's (B has 20-76)");
        assertEquals(A, policy(weighted(21, 56, 23)).serviceFor("foobar"), "slot 20 is A's last");
    }

    @Test
    void weightsHoldOverTenThousandKeysWithinOnePercentagePoint() throws ConfigException {
        ClusterHashPolicy policy = policy(weighted(50, 30, 20));
        Map<String, Integer> counts = new HashMap<>();
        int keys = 10_000;
        for (int i = 0; i < keys; i++) {
            counts.merge(policy.serviceFor("consumer-" + i), 1, Integer::sum);
        }
        assertEquals(50, 100.0 * counts.get(A) / keys, 1.0, counts.toString());
        assertEquals(30, 100.0 * counts.get(B) / keys, 1.0, counts.toString());
        assertEquals(20, 100.0 * counts.get(C) / keys, 1.0, counts.toString());
    }

    @Test
    void theSameValueAlwaysGetsTheSameServiceAndTheHeaderIsWritten() throws ConfigException {
        ClusterHashPolicy policy = policy(weighted(34, 33, 33));
        Step first = policy.select(withHeaders(Map.of("x-mse-consumer", "team-42")));
        for (int i = 0; i < 5; i++) {
            Step again = policy.select(withHeaders(Map.of("x-mse-consumer", "team-42")));
            assertEquals(first.host(), again.host());
        }
        assertEquals(Step.Kind.CLUSTER, first.kind());
        assertEquals("x-higress-target-cluster", first.clusterHeader());
    }

    @Test
    void aRequestWithoutTheHashHeaderGetsA403NamingIt() throws ConfigException {
        ClusterHashPolicy policy =
                policy("{\"hash_header\":\"X-Tenant\",\"clusters\":[{\"cluster\":\"" + A + "\",\"weight\":100}]}");
        Step missing = policy.select(withHeaders(Map.of()));
        assertEquals(Step.Kind.REJECT, missing.kind());
        assertEquals(403, missing.status());
        assertTrue(missing.body().contains("x-tenant"), missing.body());
        assertEquals(
                Step.Kind.REJECT,
                policy.select(withHeaders(Map.of("x-tenant", ""))).kind());
        assertEquals(A, policy.select(withHeaders(Map.of("x-tenant", "t"))).host());
    }

    @Test
    void weightsMustSumToExactly100() {
        ConfigException low = assertThrows(ConfigException.class, () -> policy(weighted(20, 30, 20)));
        assertEquals(
                "lb_config.clusters: weights sum to 70; they must sum to exactly 100 (each weight is a percentage)",
                low.getMessage());
        ConfigException high = assertThrows(ConfigException.class, () -> policy(weighted(50, 50, 20)));
        assertTrue(high.getMessage().contains("weights sum to 120"), high.getMessage());
    }

    @Test
    void eachEntryNeedsAClusterAndAPositiveWeight() {
        assertEquals(
                "lb_config.clusters[1].weight=0: must be an integer in [1, 100]",
                assertThrows(ConfigException.class, () -> policy(weighted(100, 0, 0)))
                        .getMessage());
        assertEquals(
                "lb_config.clusters[0].cluster: is required",
                assertThrows(ConfigException.class, () -> policy("{\"clusters\":[{\"weight\":100}]}"))
                        .getMessage());
        assertEquals(
                "lb_config.clusters: is required and must not be empty",
                assertThrows(ConfigException.class, () -> policy("{\"clusters\":[]}"))
                        .getMessage());
        assertEquals(
                "lb_config.clusters[0]: must be an object",
                assertThrows(ConfigException.class, () -> policy("{\"clusters\":[\"" + A + "\"]}"))
                        .getMessage());
    }

    @Test
    void aHeaderNameMustBeAToken() {
        assertEquals(
                "lb_config.cluster_header=:authority: must be an HTTP header name: letters, digits and "
                        + "!#$%&'*+-.^_`|~ only",
                assertThrows(
                                ConfigException.class,
                                () -> policy("{\"cluster_header\":\":authority\",\"clusters\":[{\"cluster\":\"" + A
                                        + "\",\"weight\":100}]}"))
                        .getMessage());
    }
}
