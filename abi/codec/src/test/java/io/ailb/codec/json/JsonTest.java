package io.ailb.codec.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class JsonTest {

    @Test
    void objectsKeepMemberOrder() {
        JsonValue v = Json.parse("{\"z\":1,\"a\":2,\"m\":3}");
        assertEquals(List.of("z", "a", "m"), List.copyOf(v.members().keySet()));
    }

    @Test
    void valuesHaveTypedAccessors() {
        JsonValue v = Json.parse("{\"s\":\"x\",\"n\":1.5,\"b\":true,\"z\":null,\"a\":[1,\"two\"]}");
        assertEquals("x", v.get("s").asString());
        assertEquals(1.5, v.get("n").asDouble());
        assertTrue(v.get("b").asBoolean());
        assertTrue(v.get("z").isNull());
        assertEquals(2, v.get("a").size());
        assertEquals("two", v.get("a").get(1).asString());
        assertNull(v.get("missing"));
        assertNull(v.get("a").get(5));
    }

    @Test
    void largeIntegersStayExact() {
        JsonValue v = Json.parse("[9007199254740993]");
        assertEquals(9007199254740993L, v.get(0).asLong());
        assertEquals("9007199254740993", v.get(0).numberLexeme());
    }

    @Test
    void integralNumbersInOtherFormsReadAsLong() {
        assertEquals(1000L, Json.parse("1e3").asLong());
        assertEquals(2L, Json.parse("2.0").asLong());
    }

    @Test
    void fractionalNumbersAreNotIntegral() {
        JsonValue v = Json.parse("2.5");
        assertEquals(false, v.isIntegral());
        assertThrows(IllegalStateException.class, v::asLong);
    }

    @Test
    void wrongKindAccessThrows() {
        assertThrows(IllegalStateException.class, () -> Json.parse("1").asString());
    }

    @Test
    void duplicateMemberNamesAreRejected() {
        JsonException e = assertThrows(JsonException.class, () -> Json.parse("{\"a\":1,\"a\":2}"));
        assertEquals("duplicate member name \"a\"", e.reason());
        assertEquals(7, e.position());
    }

    @Test
    void deeplyNestedDocumentsAreRejectedWithoutStackOverflow() {
        String deep = "{\"a\":".repeat(10_000) + "1" + "}".repeat(10_000);
        assertThrows(JsonException.class, () -> Json.parse(deep));
    }

    @Test
    void treesRoundTripThroughTheWriter() {
        String text = "{\"a\":[1,2.50,{\"b\":null}],\"c\":\"\\u0001\\\"\",\"d\":false,\"e\":{}}";
        assertEquals(text, Json.parse(text).toJson());
    }

    @Test
    void equalTreesAreEqual() {
        assertEquals(Json.parse("{\"a\":[1,\"x\"]}"), Json.parse(" { \"a\" : [ 1 , \"x\" ] } "));
    }
}
