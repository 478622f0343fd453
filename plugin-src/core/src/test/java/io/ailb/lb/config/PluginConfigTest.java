package io.ailb.lb.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class PluginConfigTest {
    private static final String POLICY = "\"lb_policy\":\"prefix_cache\"";

    private static PluginConfig parse(String json) throws ConfigException {
        return PluginConfig.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    private static String error(String json) {
        return assertThrows(ConfigException.class, () -> parse(json)).getMessage();
    }

    private static PluginConfig rules(String... matchers) throws ConfigException {
        StringBuilder sb = new StringBuilder("{\"_rules_\":[");
        for (int i = 0; i < matchers.length; i++) {
            sb.append(i > 0 ? "," : "")
                    .append("{")
                    .append(matchers[i])
                    .append(",")
                    .append(POLICY)
                    .append("}");
        }
        return parse(sb.append("]}").toString());
    }

    @Test
    void aGlobalConfigReadsTheEnvelopeFields() throws ConfigException {
        PluginConfig c = parse("{\"_plugin_id_\":\"x\",\"lb_type\":\"endpoint\",\"lb_policy\":\"global_least_request\","
                + "\"lb_config\":{\"serviceFQDN\":\"redis.dns\"},\"fallback_policy\":\"prefix_cache\","
                + "\"fallback_on_error\":true,\"unknown\":1}");
        LbRule global = c.global();
        assertEquals("global", global.path());
        assertEquals("endpoint", global.lbType());
        assertEquals("global_least_request", global.policy());
        assertEquals("lb_config", global.lbConfig().path());
        assertEquals("redis.dns", global.lbConfig().requiredString("serviceFQDN"));
        assertEquals("prefix_cache", global.fallbackPolicy());
        assertTrue(global.fallbackOnError());
        assertTrue(c.rules().isEmpty());
        assertEquals(
                List.of("unknown: unknown field at the top level, ignored; closest known field: lb_type"),
                c.warnings());
    }

    @Test
    void unknownTopLevelFieldsAreIgnoredWithAWarningNamingTheClosestKnownField() throws ConfigException {
        PluginConfig c =
                parse("{\"_plugin_id_\":\"x\",\"lb_polcy\":\"least_busy\"," + POLICY + ",\"Fallback_On_Error\":true}");
        assertEquals("prefix_cache", c.global().policy());
        assertFalse(c.global().fallbackOnError());
        assertEquals(
                List.of(
                        "lb_polcy: unknown field at the top level, ignored; closest known field: lb_policy",
                        "Fallback_On_Error: unknown field at the top level, ignored; closest known field: "
                                + "fallback_on_error"),
                c.warnings());
    }

    @Test
    void unknownRuleFieldsAreWarnedAboutWithTheirRule() throws ConfigException {
        PluginConfig c = parse("{\"_rules_\":[{\"_match_route_\":[\"r\"]," + POLICY
                + "},{\"_match_domain_\":[\"d\"],\"_match_service_\":[\"s\"],\"_match_route_prefix_\":[\"p\"],"
                + POLICY + ",\"_match_routes_\":[\"r\"]}]}");
        assertEquals(
                List.of("_rules_[1]._match_routes_: unknown field in a _rules_ entry, ignored; closest known field: "
                        + "_match_route_"),
                c.warnings());
    }

    @Test
    void aConfigWithOnlyKnownFieldsHasNoWarnings() throws ConfigException {
        PluginConfig c = parse("{\"_plugin_id_\":\"x\",\"lb_type\":\"endpoint\"," + POLICY + ",\"lb_config\":{},"
                + "\"fallback_policy\":\"least_busy\",\"fallback_on_error\":true,"
                + "\"_rules_\":[{\"_match_route_\":[\"r\"]," + POLICY + "}]}");
        assertEquals(List.of(), c.warnings());
    }

    @Test
    void aFallbackPolicyEqualToTheLbPolicyIsRefused() {
        assertEquals(
                "fallback_policy=prefix_cache: is the same as lb_policy; a fallback must be another policy, the same "
                        + "one fails the same way",
                error("{" + POLICY + ",\"fallback_policy\":\"prefix_cache\",\"fallback_on_error\":true}"));
        assertEquals(
                "_rules_[0].fallback_policy=prefix_cache: is the same as lb_policy; a fallback must be another "
                        + "policy, the same one fails the same way",
                error("{\"_rules_\":[{\"_match_route_\":[\"r\"]," + POLICY
                        + ",\"fallback_policy\":\"prefix_cache\"}]}"));
    }

    @Test
    void aFallbackPolicyWithoutFallbackOnErrorIsKeptButWarnedAbout() throws ConfigException {
        String expected = "fallback_policy=least_busy: never used because fallback_on_error is not true; it is still "
                + "validated and started (Redis client, metrics scrapes) but when lb_policy fails the service's own "
                + "load balancer chooses; set fallback_on_error: true or remove fallback_policy";
        PluginConfig absent = parse("{" + POLICY + ",\"fallback_policy\":\"least_busy\"}");
        assertEquals("least_busy", absent.global().fallbackPolicy());
        assertEquals(List.of(expected), absent.warnings());
        PluginConfig off = parse("{" + POLICY + ",\"fallback_policy\":\"least_busy\",\"fallback_on_error\":false}");
        assertEquals(List.of(expected), off.warnings());
        PluginConfig inRule =
                parse("{\"_rules_\":[{\"_match_route_\":[\"r\"]," + POLICY + ",\"fallback_policy\":\"least_busy\"}]}");
        assertEquals(List.of("_rules_[0]." + expected), inRule.warnings());
    }

    @Test
    void fallbackOnErrorWithoutAFallbackPolicyIsWarnedAbout() throws ConfigException {
        PluginConfig c = parse("{" + POLICY + ",\"fallback_on_error\":\"true\"}");
        assertTrue(c.global().fallbackOnError());
        assertEquals(
                List.of("fallback_on_error=true: has no effect without fallback_policy; when lb_policy fails the "
                        + "service's own load balancer chooses"),
                c.warnings());
    }

    @Test
    void envelopeDefaultsAreEndpointNoFallbackAndAnEmptyLbConfig() throws ConfigException {
        LbRule global = parse("{" + POLICY + "}").global();
        assertEquals("endpoint", global.lbType());
        assertNull(global.fallbackPolicy());
        assertFalse(global.fallbackOnError());
        assertTrue(global.lbConfig().fields().isEmpty());
    }

    @Test
    void theGlobalConfigAppliesWhenNoRuleMatches() throws ConfigException {
        PluginConfig c = parse("{" + POLICY + ",\"_rules_\":[{\"_match_route_\":[\"r1\"],"
                + "\"lb_policy\":\"global_least_request\"}]}");
        assertSame(c.global(), c.match("r2", "a.com", "outbound|80||s.dns"));
        assertEquals("_rules_[0]", c.match("r1", "a.com", "outbound|80||s.dns").path());
    }

    @Test
    void withoutAGlobalConfigAnUnmatchedRequestGetsNull() throws ConfigException {
        PluginConfig c = rules("\"_match_route_\":[\"r1\"]");
        assertNull(c.global());
        assertNull(c.match("other", "a.com", "outbound|80||s.dns"));
    }

    @Test
    void routeRulesMatchRouteNamesExactly() throws ConfigException {
        PluginConfig c = rules("\"_match_route_\":[\"ai-route-a.internal\",\"ns/b\"]");
        assertTrue(c.match("ns/b", null, null) != null);
        assertNull(c.match("ai-route-a", null, null));
        assertNull(c.match(null, null, null));
    }

    @Test
    void routePrefixRulesMatchRouteNamePrefixes() throws ConfigException {
        PluginConfig c = rules("\"_match_route_prefix_\":[\"ai-route-\"]");
        assertTrue(c.match("ai-route-x.internal", null, null) != null);
        assertNull(c.match("route-x", null, null));
    }

    @Test
    void exactDomainsIgnoreTheAuthorityPortAndCase() throws ConfigException {
        PluginConfig c = rules("\"_match_domain_\":[\"api.example.com\"]");
        assertTrue(c.match(null, "API.example.com:8443", null) != null);
        assertNull(c.match(null, "www.example.com", null));
    }

    @Test
    void wildcardPrefixDomainsMatchSuffixes() throws ConfigException {
        PluginConfig c = rules("\"_match_domain_\":[\"*.example.com\"]");
        assertTrue(c.match(null, "a.b.example.com:80", null) != null);
        assertNull(c.match(null, "example.org", null));
    }

    @Test
    void wildcardSuffixDomainsMatchPrefixes() throws ConfigException {
        PluginConfig c = rules("\"_match_domain_\":[\"api.*\"]");
        assertTrue(c.match(null, "api.example.com", null) != null);
        assertNull(c.match(null, "web.api.com", null));
    }

    @Test
    void bracketedIpv6AuthoritiesLoseOnlyTheirPort() {
        assertEquals("[::1]", RuleMatcher.stripPort("[::1]:8080"));
        assertEquals("::1", RuleMatcher.stripPort("::1"));
        assertEquals("host", RuleMatcher.stripPort("host:80"));
    }

    @Test
    void servicesWithoutAPortMatchAnyPortOfTheCluster() throws ConfigException {
        PluginConfig c = rules("\"_match_service_\":[\"llm.default.svc.cluster.local\"]");
        assertTrue(c.match(null, null, "outbound|8000||llm.default.svc.cluster.local") != null);
        assertTrue(c.match(null, null, "outbound|9000|v1|llm.default.svc.cluster.local") != null);
        assertNull(c.match(null, null, "outbound|8000||other.svc"));
    }

    @Test
    void servicesWithAPortMatchOnlyThatPort() throws ConfigException {
        PluginConfig c = rules("\"_match_service_\":[\"llm.dns:8000\"]");
        assertTrue(c.match(null, null, "outbound|8000||llm.dns") != null);
        assertNull(c.match(null, null, "outbound|9000||llm.dns"));
        assertNull(c.match(null, null, "llm.dns"));
    }

    @Test
    void clusterNamesWithoutFourFieldsNeverMatchServices() throws ConfigException {
        PluginConfig c = rules("\"_match_service_\":[\"s.dns\"]");
        assertNull(c.match(null, null, "outbound|80|s.dns"));
        assertNull(c.match(null, null, "outbound|80||s.dns|x"));
    }

    @Test
    void severalMatcherKindsInOneRuleMustAllMatch() throws ConfigException {
        PluginConfig c = rules("\"_match_route_\":[\"r\"],\"_match_service_\":[\"s.dns\"]");
        assertTrue(c.match("r", null, "outbound|80||s.dns") != null);
        assertNull(c.match("r", null, "outbound|80||t.dns"));
        assertNull(c.match("q", null, "outbound|80||s.dns"));
    }

    @Test
    void theFirstMatchingRuleInListOrderWins() throws ConfigException {
        PluginConfig c = rules("\"_match_domain_\":[\"*.com\"]", "\"_match_route_\":[\"r\"]");
        assertEquals("_rules_[0]", c.match("r", "a.com", null).path());
        assertEquals("_rules_[1]", c.match("r", "a.org", null).path());
    }

    @Test
    void allListsRulesThenGlobal() throws ConfigException {
        PluginConfig c = parse("{" + POLICY + ",\"_rules_\":[{\"_match_route_\":[\"r\"]," + POLICY + "}]}");
        assertEquals(2, c.all().size());
        assertSame(c.global(), c.all().get(1));
    }

    @Test
    void invalidJsonIsReportedWithItsPosition() {
        assertEquals(
                "plugin config is not valid JSON: invalid JSON at byte 1: unexpected end of input, expected a "
                        + "member name",
                error("{"));
    }

    @Test
    void aNonObjectDocumentIsRejected() {
        assertEquals("plugin config must be a JSON object", error("[]"));
    }

    @Test
    void anEmptyConfigIsRejected() {
        assertEquals(
                "plugin config is empty: set lb_policy, or _rules_ with match rules", error("{\"_plugin_id_\":\"p\"}"));
    }

    @Test
    void aGlobalConfigWithoutPolicyIsRejected() {
        assertEquals("lb_policy: is required", error("{\"lb_config\":{}}"));
    }

    @Test
    void anInvalidGlobalConfigIsRejectedEvenWithRules() {
        assertEquals(
                "fallback_on_error=maybe: must be true or false",
                error("{" + POLICY + ",\"fallback_on_error\":\"maybe\",\"_rules_\":[{\"_match_route_\":[\"r\"],"
                        + POLICY + "}]}"));
    }

    @Test
    void anUnknownLbTypeIsRejected() {
        assertEquals("lb_type=host: must be one of endpoint, cluster", error("{\"lb_type\":\"host\"," + POLICY + "}"));
    }

    @Test
    void aRulePolicyMustBeAString() {
        assertEquals(
                "_rules_[0].lb_policy: must be a string",
                error("{\"_rules_\":[{\"_match_route_\":[\"r\"],\"lb_policy\":1}]}"));
    }

    @Test
    void aRuleWithoutPolicyIsRejected() {
        assertEquals("_rules_[0].lb_policy: is required", error("{\"_rules_\":[{\"_match_route_\":[\"r\"]}]}"));
    }

    @Test
    void aRuleLbConfigMustBeAnObject() {
        assertEquals(
                "_rules_[0].lb_config: must be an object",
                error("{\"_rules_\":[{\"_match_route_\":[\"r\"]," + POLICY + ",\"lb_config\":\"x\"}]}"));
    }

    @Test
    void aRuleFallbackPolicyMustBeAString() {
        assertEquals(
                "_rules_[0].fallback_policy: must be a string",
                error("{\"_rules_\":[{\"_match_route_\":[\"r\"]," + POLICY + ",\"fallback_policy\":[]}]}"));
    }

    @Test
    void rulesMustBeAList() {
        assertEquals("_rules_: must be a list of rule objects", error("{\"_rules_\":{}}"));
    }

    @Test
    void eachRuleMustBeAnObject() {
        assertEquals("_rules_[0]: must be an object", error("{\"_rules_\":[\"r\"]}"));
    }

    @Test
    void aRuleNeedsAMatcher() {
        assertEquals(
                "_rules_[1]: needs at least one of _match_route_, _match_domain_, _match_service_, "
                        + "_match_route_prefix_",
                error("{\"_rules_\":[{\"_match_route_\":[\"r\"]," + POLICY + "},{" + POLICY
                        + ",\"_match_route_\":[]}]}"));
    }

    @Test
    void matcherListsMustHoldStrings() {
        assertEquals(
                "_rules_[0]._match_domain_[0]: must be a string",
                error("{\"_rules_\":[{\"_match_domain_\":[1]," + POLICY + "}]}"));
    }

    @Test
    void matcherEntriesMustNotBeEmpty() {
        assertEquals(
                "_rules_[0]._match_route_[1]: must not be empty",
                error("{\"_rules_\":[{\"_match_route_\":[\"a\",\"\"]," + POLICY + "}]}"));
    }

    @Test
    void aServicePortMustBeValid() {
        assertEquals(
                "_rules_[0]._match_service_[0]=llm.dns:http: must be fqdn or fqdn:port with a port in " + "[1, 65535]",
                error("{\"_rules_\":[{\"_match_service_\":[\"llm.dns:http\"]," + POLICY + "}]}"));
    }
}
