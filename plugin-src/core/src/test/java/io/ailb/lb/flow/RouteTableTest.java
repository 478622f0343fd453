package io.ailb.lb.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.lb.config.ConfigException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RouteTableTest {
    private static final String REDIS = "\"serviceFQDN\":\"redis.static\",\"servicePort\":6379";

    private static List<String> warnings(String json) throws ConfigException {
        return RouteTable.parse(json.getBytes(StandardCharsets.UTF_8)).warnings();
    }

    @Test
    void anUnknownLbConfigFieldIsWarnedAboutWithThePolicyThatReadsLbConfig() throws ConfigException {
        assertEquals(
                List.of("lb_config.redisKeyTtl: unknown field in lb_config of prefix_cache, ignored; closest known "
                        + "field: redisKeyTTL"),
                warnings("{\"lb_policy\":\"prefix_cache\",\"lb_config\":{" + REDIS + ",\"redisKeyTtl\":60}}"));
    }

    @Test
    void aFieldOnlyTheFallbackPolicyReadsIsKnown() throws ConfigException {
        assertEquals(
                List.of("_rules_[0].lb_config.ratelimit: unknown field in lb_config of prefix_cache and least_busy, "
                        + "ignored; closest known field: rate_limit"),
                warnings("{\"_rules_\":[{\"_match_route_\":[\"r\"],\"lb_policy\":\"prefix_cache\","
                        + "\"fallback_policy\":\"least_busy\",\"fallback_on_error\":true,"
                        + "\"lb_config\":{" + REDIS + ",\"rate_limit\":0.5,\"ratelimit\":0.5}}]}"));
    }

    @Test
    void envelopeWarningsComeFirstThenTheLbConfigOnes() throws ConfigException {
        assertEquals(
                List.of(
                        "lb_polcy: unknown field at the top level, ignored; closest known field: lb_policy",
                        "lb_config.metric: unknown field in lb_config of least_busy, ignored; closest known field: "
                                + "metricsPath"),
                warnings("{\"lb_polcy\":1,\"lb_policy\":\"least_busy\",\"lb_config\":{\"metric\":\"x\"}}"));
    }

    @Test
    void aRefusalCarriesTheWarningsThatLikelyExplainIt() {
        ConfigException missingPolicy =
                assertThrows(ConfigException.class, () -> warnings("{\"lb_polcy\":\"prefix_cache\",\"lb_config\":{}}"));
        assertEquals("lb_policy: is required", missingPolicy.getMessage());
        assertEquals(
                List.of("lb_polcy: unknown field at the top level, ignored; closest known field: lb_policy"),
                missingPolicy.warnings());

        ConfigException missingRedis = assertThrows(
                ConfigException.class,
                () -> warnings("{\"lb_policy\":\"prefix_cache\",\"lb_config\":{\"serviceFqdn\":\"redis.static\","
                        + "\"servicePort\":6379}}"));
        assertEquals("lb_config.serviceFQDN: is required", missingRedis.getMessage());
        assertEquals(1, missingRedis.warnings().size(), missingRedis.warnings().toString());
        assertTrue(
                missingRedis.warnings().get(0).endsWith("closest known field: serviceFQDN"),
                missingRedis.warnings().get(0));
    }

    @Test
    void aFallbackThatIsAnotherNameOfTheLbPolicyIsRefused() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> warnings("{\"_rules_\":[{\"_match_route_\":[\"r\"],\"lb_policy\":\"least_busy\","
                        + "\"fallback_policy\":\"metrics_based\",\"fallback_on_error\":true}]}"));
        assertEquals(
                "_rules_[0].fallback_policy=metrics_based: is another name of lb_policy least_busy; a fallback must "
                        + "be another policy, the same one fails the same way",
                e.getMessage());
    }

    @Test
    void aClusterPolicyNeedsLbTypeCluster() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> warnings("{\"lb_policy\":\"cluster_hash\",\"lb_config\":{\"clusters\":[{\"cluster\":\"a\","
                        + "\"weight\":100}]}}"));
        assertEquals(
                "lb_policy=cluster_hash: is an lb_type cluster policy but the rule's lb_type is endpoint; set lb_type: "
                        + "cluster (endpoint picks an instance of the route's service, cluster picks one of several "
                        + "services)",
                e.getMessage());
    }

    @Test
    void anEndpointPolicyIsRefusedUnderLbTypeCluster() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> warnings("{\"_rules_\":[{\"_match_route_\":[\"r\"],\"lb_type\":\"cluster\","
                        + "\"lb_policy\":\"least_busy\"}]}"));
        assertTrue(
                e.getMessage().startsWith("_rules_[0].lb_policy=least_busy: is an lb_type endpoint policy"),
                e.getMessage());
    }

    @Test
    void aFallbackMustServeTheSameLbType() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> warnings("{\"lb_type\":\"cluster\",\"lb_policy\":\"cluster_metrics\",\"fallback_policy\":"
                        + "\"least_busy\",\"fallback_on_error\":true,\"lb_config\":{\"service_list\":[\"a\"]}}"));
        assertTrue(
                e.getMessage().startsWith("fallback_policy=least_busy: is an lb_type endpoint policy"), e.getMessage());
    }

    @Test
    void aClusterRuleMatchedByServiceIsWarnedAbout() throws ConfigException {
        assertEquals(
                List.of("_rules_[0]._match_service_: a rule that chooses the service cannot be matched by service: the "
                        + "route has no cluster until the header is written (cluster_name is empty), so this rule may "
                        + "never apply; match it by route or domain"),
                warnings("{\"_rules_\":[{\"_match_service_\":[\"qwen.dns\"],\"lb_type\":\"cluster\","
                        + "\"lb_policy\":\"cluster_metrics\",\"lb_config\":{\"service_list\":[\"a\"]}}]}"));
    }

    @Test
    void aClusterRuleChoosesAClusterAndAnEndpointRuleDoesNot() throws ConfigException {
        RouteTable table = RouteTable.parse(("{\"lb_policy\":\"least_busy\",\"_rules_\":[{\"_match_route_\":"
                        + "[\"r\"],\"lb_type\":\"cluster\",\"lb_policy\":\"cluster_metrics\",\"lb_config\":"
                        + "{\"service_list\":[\"a\",\"b\"]}}]}")
                .getBytes(StandardCharsets.UTF_8));
        assertTrue(table.match("r", "x", "c").choosesCluster());
        assertFalse(table.match("other", "x", "c").choosesCluster());
    }

    @Test
    void aFallbackOfAnotherImplementationIsAccepted() throws ConfigException {
        assertEquals(
                List.of(),
                warnings("{\"lb_policy\":\"prefix_cache\",\"fallback_policy\":\"endpoint_metrics\","
                        + "\"fallback_on_error\":true,\"lb_config\":{" + REDIS + "}}"));
    }
}
