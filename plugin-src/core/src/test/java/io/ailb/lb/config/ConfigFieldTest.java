package io.ailb.lb.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.json.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigFieldTest {
    private static ConfigView view(String json) {
        return ConfigView.of(Json.parse(json), "lb_config");
    }

    private static String message(ThrowingCall call) {
        return assertThrows(ConfigException.class, call::run).getMessage();
    }

    @FunctionalInterface
    private interface ThrowingCall {
        void run() throws ConfigException;
    }

    @Test
    void anOptionalIntegerReadsItsDefaultAndStatesBothBounds() throws ConfigException {
        IntField timeout = IntField.optional("timeout", 3000, 1, Integer.MAX_VALUE, "ms", "doc");
        assertEquals(3000, timeout.read(view("{}")));
        assertEquals(5, timeout.read(view("{\"timeout\":\"5\"}")));
        assertEquals(
                "lb_config.timeout=0: must be an integer in [1, 2147483647]",
                message(() -> timeout.read(view("{\"timeout\":0}"))));
        assertEquals(
                "lb_config.timeout=2147483648: must be an integer in [1, 2147483647]",
                message(() -> timeout.read(view("{\"timeout\":2147483648}"))));
        assertEquals(3000, timeout.defaultValue());
        assertEquals(1, timeout.minimum());
        assertEquals(Integer.MAX_VALUE, timeout.maximum());
        assertEquals("ms", timeout.unit());
        assertFalse(timeout.required());
    }

    @Test
    void aRequiredIntegerHasNoDefault() {
        IntField port = IntField.required("servicePort", 1, 65535, "", "doc");
        assertEquals("lb_config.servicePort: is required", message(() -> port.read(view("{}"))));
        assertTrue(port.required());
        assertNull(port.defaultValue());
    }

    @Test
    void aNumberHasBothBoundsAndItsMessageStatesThem() throws ConfigException {
        NumberField share = NumberField.optional("rate_limit", 1.0, 0.01, 1, "doc");
        assertEquals(0.25, share.read(view("{\"rate_limit\":0.25}")));
        assertEquals(
                "lb_config.rate_limit=0: must be a number in [0.01, 1]",
                message(() -> share.read(view("{\"rate_limit\":0}"))));
        assertEquals(
                "lb_config.rate_limit=2.5: must be a number in [0.01, 1]",
                message(() -> share.read(view("{\"rate_limit\":2.5}"))));
        assertEquals(0.01, share.minimum());
        assertEquals(1.0, share.maximum());
    }

    @Test
    void aNumberFieldWithoutAFiniteRangeAroundItsDefaultIsAProgrammingError() {
        assertThrows(
                IllegalArgumentException.class,
                () -> NumberField.optional("w", 1.0, 0, Double.POSITIVE_INFINITY, "doc"));
        assertThrows(IllegalArgumentException.class, () -> NumberField.optional("w", 2.0, 0, 1, "doc"));
    }

    @Test
    void anEnumTakesItsDefaultWhenAbsentOrEmptyAndNamesTheRefusedValue() throws ConfigException {
        EnumField mode = EnumField.optional("mode", "a", "doc", "a", "b");
        assertEquals("a", mode.read(view("{}")));
        assertEquals("a", mode.read(view("{\"mode\":\"\"}")));
        assertEquals("b", mode.read(view("{\"mode\":\"b\"}")));
        assertEquals("lb_config.mode=c: must be one of a, b", message(() -> mode.read(view("{\"mode\":\"c\"}"))));
        assertEquals("lb_config.mode: must be a string", message(() -> mode.read(view("{\"mode\":1}"))));
        assertEquals(List.of("a", "b"), mode.values());
    }

    @Test
    void anEnumWithOneValueSaysWhatItMustBe() {
        EnumField only = EnumField.optional("lb_type", "endpoint", "doc", "endpoint");
        assertEquals(
                "lb_config.lb_type=host: must be endpoint", message(() -> only.read(view("{\"lb_type\":\"host\"}"))));
    }

    @Test
    void anOptionalPolicyNameReadsAsEmptyAndShowsNoDefault() throws ConfigException {
        StringField fallback = StringField.policyName("fallback_policy", false, "doc");
        assertEquals("", fallback.read(view("{}")));
        assertTrue(fallback.namesPolicy());
        assertNull(fallback.defaultValue());
        assertFalse(StringField.optional("password", "", "doc").namesPolicy());
    }

    @Test
    void aStringListRefusesEmptyEntries() throws ConfigException {
        StringListField routes = StringListField.optional("routes", "doc");
        assertEquals(List.of(), routes.read(view("{}")));
        assertEquals(
                "lb_config.routes[1]: must not be empty",
                message(() -> routes.read(view("{\"routes\":[\"a\",\"\"]}"))));
    }

    @Test
    void joinAppendsInOrderAndCannotBeModified() {
        BoolField a = BoolField.optional("a", true, "doc");
        BoolField b = BoolField.optional("b", false, "doc");
        List<ConfigField> joined = ConfigField.join(ConfigField.list(a), b);
        assertEquals(List.of(a, b), joined);
        assertThrows(UnsupportedOperationException.class, () -> joined.add(a));
    }
}
