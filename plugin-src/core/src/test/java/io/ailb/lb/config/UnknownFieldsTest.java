package io.ailb.lb.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.ailb.lb.util.TestConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class UnknownFieldsTest {
    private static final List<String> KNOWN = List.of("serviceFQDN", "redisKeyTTL", "timeout", "leaseTTL");

    private static List<String> warnings(String json) {
        List<String> out = new ArrayList<>();
        UnknownFields.check(TestConfig.view(json), KNOWN, "in lb_config of prefix_cache", out);
        return out;
    }

    @Test
    void editDistanceCountsInsertionsDeletionsAndSubstitutions() {
        assertEquals(0, UnknownFields.editDistance("lb_policy", "lb_policy"));
        assertEquals(1, UnknownFields.editDistance("lb_polcy", "lb_policy"));
        assertEquals(1, UnknownFields.editDistance("lb_pollicy", "lb_policy"));
        assertEquals(1, UnknownFields.editDistance("lb_polixy", "lb_policy"));
        assertEquals(3, UnknownFields.editDistance("kitten", "sitting"));
        assertEquals(5, UnknownFields.editDistance("", "abcde"));
    }

    @Test
    void theClosestNameIgnoresCase() {
        assertEquals("redisKeyTTL", UnknownFields.closest("redisKeyTtl", KNOWN));
        assertEquals("serviceFQDN", UnknownFields.closest("servicefqdn", KNOWN));
        assertEquals("leaseTTL", UnknownFields.closest("lease_ttl", KNOWN));
    }

    @Test
    void withoutKnownNamesThereIsNoClosest() {
        assertNull(UnknownFields.closest("x", List.of()));
    }

    @Test
    void eachUnknownFieldGetsOneLineWithWhereItWasAndTheClosestKnownField() {
        assertEquals(
                List.of(
                        "lb_config.redisKeyTtl: unknown field in lb_config of prefix_cache, ignored; closest known "
                                + "field: redisKeyTTL",
                        "lb_config.timeOut: unknown field in lb_config of prefix_cache, ignored; closest known "
                                + "field: timeout"),
                warnings("{\"serviceFQDN\":\"r\",\"redisKeyTtl\":60,\"timeOut\":5,\"leaseTTL\":9}"));
    }

    @Test
    void knownFieldsGiveNoWarning() {
        assertEquals(List.of(), warnings("{\"serviceFQDN\":\"r\",\"redisKeyTTL\":60}"));
    }

    @Test
    void aHugeUnknownNameIsCutInTheMessage() {
        String name = "x".repeat(10_000);
        String line = warnings("{\"" + name + "\":1}").get(0);
        assertEquals(
                "lb_config." + "x".repeat(64) + "...: unknown field in lb_config of prefix_cache, ignored; "
                        + "closest known field: serviceFQDN",
                line);
    }
}
