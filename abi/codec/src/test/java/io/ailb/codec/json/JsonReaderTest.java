package io.ailb.codec.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ailb.codec.json.JsonReader.Token;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JsonReaderTest {

    private static JsonReader reader(String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        return new JsonReader(bytes, 0, bytes.length);
    }

    private static List<Token> tokens(String json) {
        JsonReader r = reader(json);
        List<Token> out = new ArrayList<>();
        Token t;
        do {
            t = r.next();
            out.add(t);
        } while (t != Token.END_DOCUMENT);
        return out;
    }

    private static String firstString(String json) {
        JsonReader r = reader(json);
        r.next();
        return r.string();
    }

    @Test
    void objectMembersProduceNameAndValueTokens() {
        assertEquals(
                List.of(
                        Token.BEGIN_OBJECT,
                        Token.NAME,
                        Token.STRING,
                        Token.NAME,
                        Token.BEGIN_ARRAY,
                        Token.NUMBER,
                        Token.TRUE,
                        Token.FALSE,
                        Token.NULL,
                        Token.END_ARRAY,
                        Token.END_OBJECT,
                        Token.END_DOCUMENT),
                tokens(" {\"a\" : \"x\", \"b\":[1,true,false,null]}\n"));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "0",
                "-0",
                "1.5",
                "-1.5e10",
                "1E+2",
                "1e-2",
                "\"\"",
                "true",
                "null",
                "[]",
                "{}",
                "[[]]",
                "{\"\":{}}",
                "\"\\u0000\"",
                " \t\r\n1 \t\r\n",
                "123456789012345678901234567890"
            })
    void validDocumentsAreAccepted(String json) {
        assertEquals(Token.END_DOCUMENT, tokens(json).get(tokens(json).size() - 1));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                " ",
                "01",
                "-",
                "+1",
                "1.",
                ".5",
                "1e",
                "1e+",
                "0x10",
                "NaN",
                "Infinity",
                "tru",
                "nul",
                "True",
                "[1,]",
                "[,1]",
                "{\"a\":1,}",
                "{,}",
                "{\"a\"}",
                "{\"a\" 1}",
                "{a:1}",
                "{'a':1}",
                "[1 2]",
                "[1",
                "{\"a\":1",
                "1 2",
                "\"abc",
                "\"\\x\"",
                "\"\\u12\"",
                "\"\\u12G4\"",
                "\"tab\there\"",
                "[1]]",
                "{}}",
                "\u00a0 1",
                "// c\n1",
                "[\"a\" \"b\"]",
                "-01",
                "1.e5"
            })
    void invalidDocumentsAreRejected(String json) {
        assertThrows(JsonException.class, () -> tokens(json));
    }

    @Test
    void invalidUtf8InsideAStringIsRejected() {
        byte[][] bad = {
            {'"', (byte) 0xC0, (byte) 0x80, '"'}, // overlong NUL
            {'"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"'}, // encoded surrogate
            {'"', (byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80, '"'}, // above U+10FFFF
            {'"', (byte) 0xE2, (byte) 0x82, '"'}, // truncated sequence
            {'"', (byte) 0x80, '"'}, // lone continuation byte
        };
        for (byte[] doc : bad) {
            JsonReader r = new JsonReader(doc, 0, doc.length);
            assertThrows(JsonException.class, r::next);
        }
    }

    @Test
    void errorsReportTheBytePositionAndReason() {
        JsonException e = assertThrows(JsonException.class, () -> tokens("[1, 2 x]"));
        assertEquals(6, e.position());
        assertEquals("unexpected 'x', expected ',' or ']'", e.reason());
        assertEquals("invalid JSON at byte 6: unexpected 'x', expected ',' or ']'", e.getMessage());
    }

    @Test
    void positionsAreRelativeToTheGivenRange() {
        byte[] bytes = "xxxx[1,]".getBytes(StandardCharsets.UTF_8);
        JsonReader r = new JsonReader(bytes, 4, 4);
        r.next();
        r.next();
        JsonException e = assertThrows(JsonException.class, r::next);
        assertEquals(3, e.position());
    }

    @Test
    void simpleEscapesAreDecoded() {
        assertEquals("\"\\/\b\f\n\r\t", firstString("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\""));
    }

    @Test
    void unicodeEscapesAreDecodedIncludingSurrogatePairs() {
        assertEquals("A\u00e9\u20ac\uD83D\uDE00", firstString("\"\\u0041\\u00E9\\u20ac\\uD83D\\uDE00\""));
    }

    @Test
    void rawUtf8IsDecoded() {
        assertEquals("h\u00e9\u20ac\uD83D\uDE00", firstString("\"h\u00e9\u20ac\uD83D\uDE00\""));
    }

    @Test
    void stringUtf8StreamsDecodedBytesAndCountsCodePoints() {
        JsonReader r = reader("\"a\\u00e9\\uD83D\\uDE00\\n\u20ac\"");
        r.next();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int codePoints = r.stringUtf8(out::write);
        assertEquals("a\u00e9\uD83D\uDE00\n\u20ac", out.toString(StandardCharsets.UTF_8));
        assertEquals(5, codePoints);
    }

    @Test
    void stringUtf8ReplacesALoneSurrogateEscape() {
        JsonReader r = reader("\"\\uD800x\"");
        r.next();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        r.stringUtf8(out::write);
        assertEquals("\uFFFDx", out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void stringEqualsComparesWithoutDecodingAndHandlesEscapes() {
        JsonReader r = reader("[\"model\", \"mod\\u0065l\", \"mode\", \"caf\u00e9\"]");
        r.next();
        r.next();
        assertTrue(r.stringEquals("model"));
        r.next();
        assertTrue(r.stringEquals("model"));
        r.next();
        assertFalse(r.stringEquals("model"));
        r.next();
        assertTrue(r.stringEquals("caf\u00e9"));
    }

    @Test
    void numbersReadAsLongAndDouble() {
        JsonReader r = reader("[-9223372036854775808, 9223372036854775807, 1e3, 2.5]");
        r.next();
        r.next();
        assertEquals(Long.MIN_VALUE, r.numberAsLong());
        r.next();
        assertEquals(Long.MAX_VALUE, r.numberAsLong());
        r.next();
        assertEquals(1000L, r.numberAsLong());
        r.next();
        assertEquals(2.5, r.numberAsDouble());
        assertEquals("2.5", r.numberLexeme());
    }

    @Test
    void numberAsLongRejectsFractionsAndOverflow() {
        JsonReader r = reader("[2.5, 9223372036854775808]");
        r.next();
        r.next();
        assertThrows(JsonException.class, r::numberAsLong);
        r.next();
        assertThrows(JsonException.class, r::numberAsLong);
    }

    @Test
    void skipValueSkipsANestedValueAndLeavesTheReaderAfterIt() {
        JsonReader r = reader("{\"skip\": {\"a\": [1, {\"b\": \"c\"}], \"d\": null}, \"keep\": 7}");
        r.next();
        r.next();
        r.skipValue();
        assertEquals(Token.NAME, r.next());
        assertTrue(r.stringEquals("keep"));
        assertEquals(Token.NUMBER, r.next());
        assertEquals(1, r.depth());
    }

    @Test
    void hasNextTellsWhetherTheContainerHasMoreElements() {
        JsonReader r = reader("[1, 2] ");
        r.next();
        int count = 0;
        while (r.hasNext()) {
            r.skipValue();
            count++;
        }
        assertEquals(2, count);
        assertEquals(Token.END_ARRAY, r.next());
    }

    @Test
    void tokenRangesCoverTheRawBytesOfAValue() {
        String json = "{\"part\": {\"url\": \"x\"} }";
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        JsonReader r = new JsonReader(bytes, 0, bytes.length);
        r.next();
        r.next();
        r.next();
        int start = r.tokenStart();
        while (r.depth() > 1) {
            r.next();
        }
        assertEquals("{\"url\": \"x\"}", new String(bytes, start, r.tokenEnd() - start, StandardCharsets.UTF_8));
    }

    @Test
    void resetRestartsOnAnotherRangeOfTheSameArray() {
        byte[] bytes = "[1,{\"a\":\"b\"}]".getBytes(StandardCharsets.UTF_8);
        JsonReader r = new JsonReader(bytes, 0, bytes.length);
        r.next();
        r.next();
        r.reset(3, 9);
        assertEquals(Token.BEGIN_OBJECT, r.next());
        assertEquals(Token.NAME, r.next());
        assertEquals(Token.STRING, r.next());
        assertEquals("b", r.string());
        assertEquals(Token.END_OBJECT, r.next());
        assertEquals(Token.END_DOCUMENT, r.next());
    }

    @Test
    void nestingBeyondTheLimitIsRejectedWithoutStackOverflow() {
        String deep = "[".repeat(100_000) + "]".repeat(100_000);
        JsonException e = assertThrows(JsonException.class, () -> tokens(deep));
        assertEquals("nesting deeper than 64", e.reason());
        assertEquals(64, e.position());
    }

    @Test
    void nestingAtTheLimitIsAccepted() {
        String deep = "[".repeat(64) + "]".repeat(64);
        assertEquals(129, tokens(deep).size());
    }

    @Test
    void skippingAMultiMebibyteDocumentAllocatesAlmostNothing() {
        byte[] doc = document(5 << 20);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long threadId = Thread.currentThread().getId();
        new JsonReader(doc, 0, doc.length).skipValue();
        long before = mx.getThreadAllocatedBytes(threadId);
        JsonReader r = new JsonReader(doc, 0, doc.length);
        r.skipValue();
        long allocated = mx.getThreadAllocatedBytes(threadId) - before;
        assertEquals(Token.END_DOCUMENT, r.next());
        assertTrue(allocated < 64 * 1024, "allocated " + allocated + " bytes");
    }

    @Test
    void parsingTimeGrowsLinearlyWithDocumentSize() {
        byte[] small = document(1 << 20);
        byte[] large = document(4 << 20);
        long smallNanos = bestOfFive(small);
        long largeNanos = bestOfFive(large);
        // Linear predicts 4x; quadratic would be 16x. The loose bound absorbs JIT and GC noise.
        assertTrue(largeNanos < smallNanos * 10, "1 MiB: " + smallNanos + " ns, 4 MiB: " + largeNanos + " ns");
    }

    private static long bestOfFive(byte[] doc) {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            long start = System.nanoTime();
            new JsonReader(doc, 0, doc.length).skipValue();
            best = Math.min(best, System.nanoTime() - start);
        }
        return best;
    }

    /** A chat-like document of about {@code size} bytes: many messages, escapes, numbers and nesting. */
    private static byte[] document(int size) {
        StringBuilder sb = new StringBuilder(size + 256);
        sb.append("{\"model\":\"m\",\"messages\":[");
        int i = 0;
        while (sb.length() < size) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append("{\"role\":\"user\",\"content\":\"line ")
                    .append(i)
                    .append(" caf\u00e9 \\\"quoted\\\" \\u20ac\\n\",\"n\":[")
                    .append(i)
                    .append(",1.5e3,true,null]}");
            i++;
        }
        sb.append("]}");
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Plain runs of every length around a word, then one byte that is not plain, at every position of a word. */
    @Test
    void wordAtATimeScanningStopsAtEveryKindOfByteAtEveryOffset() {
        for (int before = 0; before <= 20; before++) {
            for (int after = 0; after <= 10; after++) {
                String head = "abcdefghijklmnopqrstuvwxyz".substring(0, before);
                String tail = "ABCDEFGHIJ".substring(0, after);
                assertEquals(head + "\n" + tail, firstString("\"" + head + "\\n" + tail + "\""));
                assertEquals(head + "\"" + tail, firstString("\"" + head + "\\\"" + tail + "\""));
                assertEquals(head + "\u00e9\u4e2d" + tail, firstString("\"" + head + "\u00e9\u4e2d" + tail + "\""));
                assertEquals(head, firstString("\"" + head + "\"" + tail + "\""));
                String control = "\"" + head + "\u0001" + tail + "\"";
                assertThrows(JsonException.class, () -> firstString(control));
                byte[] invalid = ("\"" + head + "?" + tail + "\"").getBytes(StandardCharsets.UTF_8);
                invalid[1 + before] = (byte) 0xFF;
                JsonReader r = new JsonReader(invalid, 0, invalid.length);
                assertThrows(JsonException.class, r::next);
                String unterminated = "\"" + head + tail;
                assertThrows(JsonException.class, () -> firstString(unterminated));
            }
        }
    }

    /**
     * Escaped strings reach the sink through a decode buffer: long strings with escapes of every width placed across
     * its boundaries give the same bytes, byte count and code-point count as decoding the whole string at once.
     */
    @Test
    void stringUtf8GivesTheDecodedStringWhateverItsLengthAndEscapes() {
        String[][] pieces = {
            {"kv cache ", "kv cache "},
            {"\\n", "\n"},
            {"\\\"", "\""},
            {"\\/", "/"},
            {"\\u00e9", "\u00e9"},
            {"\\u4e2d", "\u4e2d"},
            {"\\uD83D\\uDE00", "\uD83D\uDE00"},
            {"\\uD800", "\uFFFD"},
            {"\u00e9", "\u00e9"},
            {"\u4e2d\u6587", "\u4e2d\u6587"},
            {"\uD83D\uDE00", "\uD83D\uDE00"},
            {"x", "x"}
        };
        java.util.SplittableRandom random = new java.util.SplittableRandom(3);
        for (int n = 0; n < 60; n++) {
            StringBuilder json = new StringBuilder("\"");
            StringBuilder expected = new StringBuilder();
            int length = n < 10 ? random.nextInt(40) : random.nextInt(12_000);
            while (json.length() < length) {
                String[] piece = pieces[random.nextInt(pieces.length)];
                json.append(piece[0]);
                expected.append(piece[1]);
            }
            json.append('"');
            byte[] expectedBytes = expected.toString().getBytes(StandardCharsets.UTF_8);

            JsonReader r = reader(json.toString());
            r.next();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            assertEquals(expected.codePointCount(0, expected.length()), r.stringUtf8(out::write));
            assertEquals(expected.toString(), out.toString(StandardCharsets.UTF_8));
            ByteArrayOutputStream again = new ByteArrayOutputStream();
            assertEquals(expectedBytes.length, r.stringUtf8Bytes(again::write));
            assertEquals(expected.toString(), again.toString(StandardCharsets.UTF_8));
        }
    }

    /** Multi-byte sequences are validated a run at a time: a bad sequence anywhere in a run is still found. */
    @Test
    void runsOfMultiByteSequencesAreValidatedToTheirEnd() {
        String run = "\u4e2d\u6587\u00e9\ud83d\ude00\u4e2d";
        assertEquals(run, firstString("\"" + run + "\""));
        assertEquals("a" + run + "b" + run, firstString("\"a" + run + "b" + run + "\""));
        byte[] valid = run.getBytes(StandardCharsets.UTF_8);
        for (int bad = 0; bad < valid.length; bad++) {
            byte[] json = new byte[valid.length + 2];
            json[0] = '"';
            System.arraycopy(valid, 0, json, 1, valid.length);
            json[json.length - 1] = '"';
            // A continuation byte becomes ASCII (its sequence ends early); a lead byte becomes 0xC0 (never valid).
            json[1 + bad] = (byte) ((valid[bad] & 0xC0) == 0x80 ? 'x' : 0xC0);
            JsonReader r = new JsonReader(json, 0, json.length);
            assertThrows(JsonException.class, r::next, "byte " + bad);
        }
        byte[] truncated = {'"', (byte) 0xE4, (byte) 0xB8};
        assertThrows(JsonException.class, () -> new JsonReader(truncated, 0, truncated.length).next());
    }
}
