package io.ailb.lb.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.json.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigViewTest {

    private static ConfigView view(String json) {
        return ConfigView.of(Json.parse(json), "_rules_[1].lb_config");
    }

    private static String message(ThrowingCall call) {
        return assertThrows(ConfigException.class, call::run).getMessage();
    }

    @FunctionalInterface
    private interface ThrowingCall {
        void run() throws ConfigException;
    }

    @Test
    void fieldPathsJoinTheViewPathAndTheField() {
        assertEquals("_rules_[1].lb_config.servicePort", view("{}").fieldPath("servicePort"));
        assertEquals("lb_policy", ConfigView.root(Json.parse("{}")).fieldPath("lb_policy"));
    }

    @Test
    void integersAcceptIntegralNumbersAndNumericStrings() throws ConfigException {
        ConfigView v = view("{\"a\":6379,\"b\":\"6380\",\"c\":1e2}");
        assertEquals(6379, v.integer("a", 0, 1, 65535));
        assertEquals(6380, v.integer("b", 0, 1, 65535));
        assertEquals(100, v.integer("c", 0, 1, 65535));
    }

    @Test
    void absentAndNullIntegersTakeTheDefault() throws ConfigException {
        ConfigView v = view("{\"n\":null}");
        assertEquals(3000, v.integer("timeout", 3000, 1, 60000));
        assertEquals(3000, v.integer("n", 3000, 1, 60000));
    }

    @Test
    void aNonNumericIntegerNamesPathValueAndRange() {
        assertEquals(
                "_rules_[1].lb_config.servicePort=abc: must be an integer in [1, 65535]",
                message(() -> view("{\"servicePort\":\"abc\"}").integer("servicePort", 6379, 1, 65535)));
    }

    @Test
    void anOutOfRangeIntegerIsRejected() {
        assertEquals(
                "_rules_[1].lb_config.servicePort=70000: must be an integer in [1, 65535]",
                message(() -> view("{\"servicePort\":70000}").integer("servicePort", 6379, 1, 65535)));
    }

    @Test
    void aFractionalIntegerIsRejected() {
        assertEquals(
                "_rules_[1].lb_config.database=1.5: must be an integer in [0, 2147483647]",
                message(() -> view("{\"database\":1.5}").integer("database", 0, 0, Integer.MAX_VALUE)));
    }

    @Test
    void aMissingRequiredIntegerIsRequired() {
        assertEquals("_rules_[1].lb_config.servicePort: is required", message(() -> view("{}")
                .requiredInteger("servicePort", 1, 65535)));
    }

    @Test
    void numbersAcceptNumericStringsAndCheckTheRange() throws ConfigException {
        assertEquals(0.5, view("{\"rate_limit\":\"0.5\"}").number("rate_limit", 1.0, 0.0, 1.0));
        assertEquals(
                "_rules_[1].lb_config.rate_limit=1.5: must be a number in [0, 1]",
                message(() -> view("{\"rate_limit\":1.5}").number("rate_limit", 1.0, 0.0, 1.0)));
    }

    @Test
    void numberBoundsPrintBothEndsWithTheirFractions() {
        assertEquals("_rules_[1].lb_config.w=true: must be a number in [0.5, 2.5]", message(() -> view("{\"w\":true}")
                .number("w", 1.0, 0.5, 2.5)));
    }

    @Test
    void stringsRejectOtherTypesWithoutEchoingTheValue() {
        assertEquals("_rules_[1].lb_config.password: must be a string", message(() -> view("{\"password\":12345}")
                .string("password", "")));
    }

    @Test
    void anEmptyRequiredStringIsRequired() {
        assertEquals("_rules_[1].lb_config.serviceFQDN: is required", message(() -> view("{\"serviceFQDN\":\"\"}")
                .requiredString("serviceFQDN")));
    }

    @Test
    void booleansAcceptLiteralsAndTheirStrings() throws ConfigException {
        ConfigView v = view("{\"a\":true,\"b\":\"false\"}");
        assertTrue(v.bool("a", false));
        assertFalse(v.bool("b", true));
        assertTrue(v.bool("c", true));
    }

    @Test
    void aNonBooleanIsRejected() {
        assertEquals("_rules_[1].lb_config.x=yes: must be true or false", message(() -> view("{\"x\":\"yes\"}")
                .bool("x", false)));
    }

    @Test
    void stringListsReadInOrderAndDefaultToEmpty() throws ConfigException {
        ConfigView v = view("{\"l\":[\"a\",\"b\"]}");
        assertEquals(List.of("a", "b"), v.stringList("l"));
        assertEquals(List.of(), v.stringList("none"));
    }

    @Test
    void aNonStringListElementNamesItsIndex() {
        assertEquals("_rules_[1].lb_config.l[1]: must be a string", message(() -> view("{\"l\":[\"a\",2]}")
                .stringList("l")));
    }

    @Test
    void aNonListIsRejected() {
        assertEquals("_rules_[1].lb_config.l: must be a list of strings", message(() -> view("{\"l\":\"a\"}")
                .stringList("l")));
    }

    @Test
    void anAbsentObjectIsAnEmptyViewWithItsPath() throws ConfigException {
        ConfigView nested = view("{}").object("inner");
        assertEquals("_rules_[1].lb_config.inner", nested.path());
        assertTrue(nested.fields().isEmpty());
    }

    @Test
    void aNonObjectIsRejected() {
        assertEquals("_rules_[1].lb_config.inner: must be an object", message(() -> view("{\"inner\":[]}")
                .object("inner")));
    }

    @Test
    void fieldsListPresentMembersInOrder() {
        ConfigView v = view("{\"b\":1,\"a\":null}");
        assertEquals(List.of("b", "a"), List.copyOf(v.fields()));
        assertTrue(v.has("b"));
        assertFalse(v.has("a"));
    }

    @Test
    void longValuesAreCutInMessages() {
        String longValue = "x".repeat(100);
        assertEquals(
                "_rules_[1].lb_config.n=" + "x".repeat(64) + "...: must be an integer in [1, 2]",
                message(() -> view("{\"n\":\"" + longValue + "\"}").integer("n", 1, 1, 2)));
    }
}
