package io.ailb.codec.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonWriterTest {

    @Test
    void writesCompactNestedStructuresWithCommas() {
        String json = new JsonWriter()
                .beginObject()
                .name("a")
                .value(1)
                .name("b")
                .beginArray()
                .value("x")
                .value(true)
                .nullValue()
                .beginObject()
                .endObject()
                .endArray()
                .name("c")
                .value(2.5)
                .endObject()
                .toString();
        assertEquals("{\"a\":1,\"b\":[\"x\",true,null,{}],\"c\":2.5}", json);
    }

    @Test
    void escapesQuotesBackslashesAndControlCharacters() {
        assertEquals(
                "\"q\\\"b\\\\n\\nt\\tc\\u0001\"",
                new JsonWriter().value("q\"b\\n\nt\tc\u0001").toString());
    }

    @Test
    void keepsNonAsciiAsUtf8() {
        byte[] bytes = new JsonWriter().value("\u00e9\uD83D\uDE00").toBytes();
        assertEquals("\"\u00e9\uD83D\uDE00\"", new String(bytes, StandardCharsets.UTF_8));
    }

    @Test
    void escapesLoneSurrogatesSoTheOutputIsValidUtf8() {
        assertEquals("\"\\ud800x\"", new JsonWriter().value("\uD800x").toString());
    }

    @Test
    void integralDoublesAreWrittenWithoutAFraction() {
        assertEquals(
                "[3,0.1]",
                new JsonWriter().beginArray().value(3.0).value(0.1).endArray().toString());
    }

    @Test
    void nonFiniteNumbersAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new JsonWriter().value(Double.NaN));
    }

    @Test
    void writerOutputParsesBack() {
        String json = new JsonWriter()
                .beginObject()
                .name("k\u0000")
                .value("v\u001f")
                .endObject()
                .toString();
        assertEquals("v\u001f", Json.parse(json).get("k\u0000").asString());
    }
}
