package io.ailb.lb.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.json.Json;
import io.ailb.codec.json.JsonValue;
import io.ailb.lb.config.ConfigException;
import io.ailb.lb.config.ConfigField;
import io.ailb.lb.config.ConfigView;
import io.ailb.lb.flow.RouteTable;
import io.ailb.lb.util.TestConfig;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The registry's field descriptors are what the policies really read, and they are self-consistent. */
class PolicyFieldsTest {
    /** Values for the required fields, so that a config is valid but for the field under test. */
    static final String REQUIRED = "\"serviceFQDN\":\"redis.static\",\"servicePort\":6379,"
            + "\"service_list\":[\"outbound|80||a.dns\"],\"clusters\":[{\"cluster\":\"outbound|80||a.dns\",\"weight\":100}]";

    @Test
    void everyDeclaredFieldIsReadAndValidatedByItsPolicy() {
        for (String name : PolicyRegistry.names()) {
            for (ConfigField field : PolicyRegistry.fields(name)) {
                Map<String, JsonValue> members =
                        new LinkedHashMap<>(Json.parse("{" + REQUIRED + "}").members());
                members.put(field.name(), Json.parse(wrongValue(field)));
                ConfigView config = ConfigView.of(JsonValue.object(members), "lb_config");
                ConfigException e = assertThrows(
                        ConfigException.class,
                        () -> PolicyRegistry.create(name, "lb_policy", config),
                        name + ": " + members);
                assertTrue(e.getMessage().startsWith("lb_config." + field.name()), name + ": " + e.getMessage());
            }
        }
    }

    @Test
    void aConfigWithTheRequiredFieldsOnlyIsValidForEveryPolicy() throws ConfigException {
        for (String name : PolicyRegistry.names()) {
            assertNotNull(PolicyRegistry.create(name, "lb_policy", TestConfig.view("{" + REQUIRED + "}")));
        }
    }

    @Test
    void everyRegisteredPolicyIsAcceptedAsFallback() throws ConfigException {
        for (String name : PolicyRegistry.names()) {
            // A fallback that is lb_policy under any of its names is refused; both serve the same lb_type.
            String lbType = PolicyRegistry.lbType(name);
            String primary = lbType.equals("cluster")
                    ? (name.equals("cluster_hash") ? "cluster_metrics" : "cluster_hash")
                    : PolicyRegistry.sameImplementation(name, "least_busy") ? "global_least_request" : "least_busy";
            String config = "{\"lb_type\":\"" + lbType + "\",\"lb_policy\":\"" + primary
                    + "\",\"fallback_policy\":\"" + name
                    + "\",\"fallback_on_error\":" + "true,\"lb_config\":{" + REQUIRED + "}}";
            assertNotNull(
                    RouteTable.parse(config.getBytes(StandardCharsets.UTF_8)).match("r", "a", "c"), name);
        }
    }

    @Test
    void defaultsLieWithinTheirRangeAndValues() {
        for (String name : PolicyRegistry.names()) {
            for (ConfigField field : PolicyRegistry.fields(name)) {
                Object value = field.defaultValue();
                if (value instanceof Number number) {
                    double d = number.doubleValue();
                    assertTrue(field.minimum() == null || d >= field.minimum().doubleValue(), field.toString());
                    assertTrue(field.maximum() == null || d <= field.maximum().doubleValue(), field.toString());
                }
                if (!field.values().isEmpty()) {
                    assertTrue(field.values().contains(value), field.toString());
                }
                assertTrue(field.required() == (value == null), field + " is required exactly when it has no default");
            }
        }
    }

    @Test
    void aPolicyDeclaresEachFieldOnce() {
        for (String name : PolicyRegistry.names()) {
            Set<String> seen = new HashSet<>();
            for (ConfigField field : PolicyRegistry.fields(name)) {
                assertTrue(seen.add(field.name()), name + " declares " + field.name() + " twice");
            }
        }
    }

    @Test
    void aliasesShareOneFieldList() {
        List<ConfigField> endpointMetrics = PolicyRegistry.fields("endpoint_metrics");
        assertEquals(endpointMetrics, PolicyRegistry.fields("least_busy"));
        assertEquals(endpointMetrics, PolicyRegistry.fields("metrics_based"));
    }

    /** A value of the wrong JSON type for the field, or outside its values or range. */
    private static String wrongValue(ConfigField field) {
        switch (field.type()) {
            case STRING:
                return "12345";
            case BOOLEAN:
                return "\"maybe\"";
            case INTEGER:
            case NUMBER:
                return "\"lots\"";
            default:
                return "[]";
        }
    }
}
