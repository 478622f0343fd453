package io.ailb.codec.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Any bytes as a JSON document (plugin configuration, host info; docs/reliability.md, "Fuzzing"): a value or a
 * {@link JsonException}, never another exception; a value written back as JSON parses to the same value.
 */
final class JsonFuzzTest {

    @FuzzTest(maxDuration = "60s")
    void anyBytesParseToAValueOrAJsonException(byte[] input) {
        JsonValue value;
        try {
            value = Json.parse(input);
        } catch (JsonException e) {
            assertTrue(e.position() >= 0 && e.position() <= input.length, "error position inside the input: " + e);
            return;
        }
        assertEquals(value, Json.parse(value.toJson()));
    }

    @FuzzTest(maxDuration = "60s")
    void theStreamingReaderAcceptsWhatTheTreeParserAccepts(byte[] input) {
        try {
            Json.parse(input);
        } catch (JsonException e) {
            return;
        }
        // The tree parser is stricter only in refusing duplicate member names.
        JsonReader reader = new JsonReader(input);
        reader.skipValue();
        assertEquals(JsonReader.Token.END_DOCUMENT, reader.next());
    }
}
