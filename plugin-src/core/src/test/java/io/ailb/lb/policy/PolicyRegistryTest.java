package io.ailb.lb.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.lb.config.ConfigException;
import io.ailb.lb.policy.endpointmetrics.EndpointMetricsPolicy;
import io.ailb.lb.util.TestConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

class PolicyRegistryTest {
    @Test
    void itKnowsTheHigressEndpointPoliciesAndTheirAliasesInHigressOrder() {
        List<String> higress =
                List.of("least_busy", "endpoint_metrics", "metrics_based", "global_least_request", "prefix_cache");
        assertEquals(higress, PolicyRegistry.names().subList(0, higress.size()));
    }

    @Test
    void theEndpointMetricsNamesAreOnePolicyAndEveryOtherPolicyIsItsOwn() {
        assertTrue(PolicyRegistry.sameImplementation("least_busy", "metrics_based"));
        assertTrue(PolicyRegistry.sameImplementation("endpoint_metrics", "least_busy"));
        assertTrue(PolicyRegistry.sameImplementation("prefix_cache", "prefix_cache"));
        assertFalse(PolicyRegistry.sameImplementation("prefix_cache", "cache_aware"));
        assertFalse(PolicyRegistry.sameImplementation("global_least_request", "endpoint_metrics"));
    }

    @Test
    void anUnknownPolicyIsRejectedListingTheKnownOnes() {
        ConfigException e = assertThrows(
                ConfigException.class, () -> PolicyRegistry.create(TestConfig.root("{\"lb_policy\":\"round_robin\"}")));
        assertEquals(
                "lb_policy: unknown policy \"round_robin\"; known policies: "
                        + String.join(", ", PolicyRegistry.names()),
                e.getMessage());
    }

    @Test
    void aMissingPolicyNameIsRejected() {
        ConfigException e = assertThrows(ConfigException.class, () -> PolicyRegistry.create(TestConfig.root("{}")));
        assertEquals("lb_policy: is required", e.getMessage());
    }

    @Test
    void theAliasKeepsItsConfiguredName() throws ConfigException {
        LoadBalancingPolicy policy = PolicyRegistry.create(TestConfig.root("{\"lb_policy\":\"metrics_based\"}"));
        assertTrue(policy instanceof EndpointMetricsPolicy);
        assertEquals("metrics_based", policy.name());
    }

    @Test
    void anAbsentLbConfigIsReadAsEmpty() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> PolicyRegistry.create(TestConfig.root("{\"lb_policy\":\"global_least_request\"}")));
        assertEquals("lb_config.serviceFQDN: is required", e.getMessage());
    }

    @Test
    void thePolicyGetsItsLbConfig() throws ConfigException {
        LoadBalancingPolicy policy = PolicyRegistry.create(TestConfig.root(
                "{\"lb_policy\":\"prefix_cache\",\"lb_config\":{\"serviceFQDN\":\"r.dns\",\"servicePort\":6379}}"));
        assertEquals("outbound|6379||r.dns", policy.redisTargets().get(0).clusterName());
    }
}
