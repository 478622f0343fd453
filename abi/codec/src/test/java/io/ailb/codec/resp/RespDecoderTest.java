package io.ailb.codec.resp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

final class RespDecoderTest {

    /** Valid replies covering every accepted type, nesting, nulls and empties. */
    private static final String[] VALID_REPLIES = {
        "+OK\r\n",
        "+\r\n",
        "-ERR unknown command 'FOO'\r\n",
        "-NOSCRIPT No matching script. Please use EVAL.\r\n",
        ":0\r\n",
        ":-17\r\n",
        ":9223372036854775807\r\n",
        ":-9223372036854775808\r\n",
        "$5\r\nhello\r\n",
        "$0\r\n\r\n",
        "$-1\r\n",
        "$4\r\na\r\nb\r\n",
        "*-1\r\n",
        "*0\r\n",
        "*3\r\n:1\r\n$-1\r\n*2\r\n+a\r\n*0\r\n",
        "*2\r\n*2\r\n*1\r\n:5\r\n$2\r\n42\r\n-ERR inner\r\n",
        "_\r\n",
        "#t\r\n",
        ",3.25\r\n",
        "(3492890328409238509324850943850943825024385\r\n",
        "!21\r\nSYNTAX invalid syntax\r\n",
        "=15\r\ntxt:Some string\r\n",
        "%2\r\n+first\r\n:1\r\n+second\r\n:2\r\n",
        "~2\r\n:1\r\n:2\r\n",
        ">2\r\n+message\r\n$2\r\nhi\r\n",
    };

    private final RespDecoder decoder = RespDecoder.DEFAULT;

    @Test
    void decodesScalars() {
        assertEquals(RespValue.simpleString("OK"), decode("+OK\r\n"));
        assertEquals(RespValue.integer(-17), decode(":-17\r\n"));
        assertEquals(RespValue.integer(Long.MIN_VALUE), decode(":-9223372036854775808\r\n"));
        assertEquals(RespValue.bulkString("hello"), decode("$5\r\nhello\r\n"));
        assertEquals(RespValue.bulkString(""), decode("$0\r\n\r\n"));
        assertEquals(RespValue.bulkString("a\r\nb"), decode("$4\r\na\r\nb\r\n"));
    }

    @Test
    void decodesNullBulkAndNullArrayAsNull() {
        assertTrue(decode("$-1\r\n").isNull());
        assertTrue(decode("*-1\r\n").isNull());
        assertTrue(decode("_\r\n").isNull());
    }

    @Test
    void decodesEmptyAndNestedArrays() {
        assertEquals(List.of(), decode("*0\r\n").elements());
        RespValue nested = decode("*3\r\n:1\r\n$-1\r\n*2\r\n+a\r\n*0\r\n");
        assertEquals(
                RespValue.array(
                        RespValue.integer(1),
                        RespValue.NULL,
                        RespValue.array(RespValue.simpleString("a"), RespValue.array())),
                nested);
    }

    @Test
    void decodesErrorsWithTheirCodes() {
        RespValue error = decode("-NOSCRIPT No matching script. Please use EVAL.\r\n");
        assertTrue(error.isError());
        assertEquals("NOSCRIPT", error.errorCode());
        assertEquals("NOSCRIPT No matching script. Please use EVAL.", error.asString());
        assertEquals("NOAUTH", decode("-NOAUTH Authentication required.\r\n").errorCode());
        assertEquals("ERR", decode("-ERR\r\n").errorCode());
    }

    @Test
    void decodesBinaryBulkStrings() {
        byte[] reply = {'$', '3', '\r', '\n', 0, (byte) 0xFF, '\n', '\r', '\n'};
        assertArrayEquals(
                new byte[] {0, (byte) 0xFF, '\n'},
                decoder.decodeExactly(reply, 0, reply.length).asBytes());
    }

    @Test
    void mapsResp3TypesOntoResp2Kinds() {
        assertEquals(RespValue.integer(1), decode("#t\r\n"));
        assertEquals(RespValue.integer(0), decode("#f\r\n"));
        assertEquals(RespValue.bulkString("3.25"), decode(",3.25\r\n"));
        assertEquals(RespValue.bulkString("12345678901234567890123"), decode("(12345678901234567890123\r\n"));
        RespValue blobError = decode("!21\r\nSYNTAX invalid syntax\r\n");
        assertTrue(blobError.isError());
        assertEquals("SYNTAX", blobError.errorCode());
        assertEquals(RespValue.bulkString("Some string"), decode("=15\r\ntxt:Some string\r\n"));
        assertEquals(
                RespValue.array(
                        RespValue.simpleString("first"),
                        RespValue.integer(1),
                        RespValue.simpleString("second"),
                        RespValue.integer(2)),
                decode("%2\r\n+first\r\n:1\r\n+second\r\n:2\r\n"));
        assertEquals(RespValue.array(RespValue.integer(1), RespValue.integer(2)), decode("~2\r\n:1\r\n:2\r\n"));
        assertEquals(2, decode(">2\r\n+message\r\n$2\r\nhi\r\n").elements().size());
    }

    @Test
    void reportsConsumedBytesAndLeavesTheRestAlone() {
        byte[] buf = ascii("junk:7\r\n+next\r\n");
        RespDecoder.Result first = decoder.decode(buf, 4, buf.length - 4);
        assertTrue(first.isComplete());
        assertEquals(RespValue.integer(7), first.value());
        assertEquals(4, first.consumed());
        RespDecoder.Result second = decoder.decode(buf, 4 + first.consumed(), buf.length - 8);
        assertEquals(RespValue.simpleString("next"), second.value());
        assertEquals(7, second.consumed());
    }

    @Test
    void everyProperPrefixOfAValidReplyIsIncomplete() {
        for (String reply : VALID_REPLIES) {
            byte[] full = ascii(reply);
            // Embed in a larger buffer so that bytes beyond the given length must not be read.
            byte[] buf = new byte[full.length + 2];
            System.arraycopy(full, 0, buf, 1, full.length);
            buf[0] = 'X';
            buf[buf.length - 1] = 'X';
            for (int cut = 0; cut < full.length; cut++) {
                RespDecoder.Result result = decoder.decode(buf, 1, cut);
                assertFalse(result.isComplete(), () -> "prefix of " + escape(reply) + " decoded as complete");
                assertEquals(0, result.consumed());
            }
            RespDecoder.Result whole = decoder.decode(buf, 1, full.length);
            assertTrue(whole.isComplete(), () -> escape(reply));
            assertEquals(full.length, whole.consumed());
        }
    }

    @Test
    void incompleteResultRefusesToGiveAValue() {
        RespDecoder.Result result = decoder.decode(ascii("$5\r\nhel"), 0, 7);
        assertThrows(IllegalStateException.class, result::value);
    }

    @Test
    void hugeDeclaredBulkLengthWithinTheLimitWaitsForMoreBytes() {
        assertFalse(decoder.decode(ascii("$60000000\r\nabc"), 0, 14).isComplete());
        assertFalse(decoder.decode(ascii("*1000000\r\n:1\r\n"), 0, 14).isComplete());
    }

    @Test
    void malformedInputReportsTheOffendingByte() {
        assertMalformedAt("?abc\r\n", 0);
        assertMalformedAt(":12a\r\n", 1);
        assertMalformedAt(":\r\n", 1);
        assertMalformedAt(":99999999999999999999\r\n", 1);
        assertMalformedAt("+OK\rX", 4);
        assertMalformedAt("+OK\n", 3);
        assertMalformedAt("$3\r\nabcd\r\n", 7);
        assertMalformedAt("$-2\r\n", 1);
        assertMalformedAt("*-5\r\n", 1);
        assertMalformedAt("*2\r\n:1\r\n?\r\n", 8);
        assertMalformedAt("#x\r\n", 1);
        assertMalformedAt("=2\r\nab\r\n", 4);
        assertMalformedAt("|1\r\n+a\r\n+b\r\n", 0);
        assertMalformedAt(":1234567890123456789012345", 1);
    }

    @Test
    void malformedOffsetsAreAbsoluteInTheBuffer() {
        byte[] buf = ascii("0123:x\r\n");
        RespException e = assertThrows(RespException.class, () -> decoder.decode(buf, 4, 4));
        assertEquals(5, e.offset());
        assertTrue(e.getMessage().contains("byte 5"), e.getMessage());
    }

    @Test
    void depthLimitAllowsExactlyTheConfiguredNesting() {
        RespDecoder shallow = new RespDecoder(3, 100, 100);
        RespValue three = shallow.decodeExactly(ascii("*1\r\n*1\r\n*1\r\n:1\r\n"), 0, 16);
        assertEquals(
                RespValue.integer(1),
                three.elements().get(0).elements().get(0).elements().get(0));
        assertMalformedAt(shallow, "*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n", 13);
        // Empty arrays open no level, so they are allowed at the deepest level.
        assertEquals(4, depthOf(shallow.decodeExactly(ascii("*1\r\n*1\r\n*1\r\n*0\r\n"), 0, 16)));
    }

    @Test
    void hostileNestingFailsCleanlyInsteadOfOverflowingTheStack() {
        StringBuilder hostile = new StringBuilder();
        for (int i = 0; i < 200_000; i++) {
            hostile.append("*1\r\n");
        }
        byte[] data = ascii(hostile.toString());
        RespException e = assertThrows(RespException.class, () -> decoder.decode(data, 0, data.length));
        assertEquals(RespDecoder.DEFAULT_MAX_DEPTH * 4 + 1, e.offset());
    }

    @Test
    void deepNestingWithinAGenerousLimitDecodesAndPrints() {
        RespDecoder generous = new RespDecoder(100_000, 10, 10);
        StringBuilder deep = new StringBuilder();
        for (int i = 0; i < 100_000; i++) {
            deep.append("*1\r\n");
        }
        deep.append(":7\r\n");
        byte[] data = ascii(deep.toString());
        RespValue value = generous.decodeExactly(data, 0, data.length);
        assertEquals(100_000, depthOf(value));
        assertEquals(value, generous.decodeExactly(data, 0, data.length));
        assertEquals(
                value.hashCode(), generous.decodeExactly(data, 0, data.length).hashCode());
        assertTrue(value.toString().startsWith("[[[["));
        assertArrayEquals(data, RespEncoder.encode(value));
    }

    @Test
    void elementAndBulkLimitsRejectOversizedDeclarations() {
        RespDecoder small = new RespDecoder(4, 3, 5);
        assertEquals(
                3,
                small.decodeExactly(ascii("*3\r\n:1\r\n:2\r\n:3\r\n"), 0, 16)
                        .elements()
                        .size());
        assertMalformedAt(small, "*4\r\n", 1);
        assertMalformedAt(small, "%2\r\n", 1);
        assertEquals(
                "12345", small.decodeExactly(ascii("$5\r\n12345\r\n"), 0, 11).asString());
        assertMalformedAt(small, "$6\r\n", 1);
        assertMalformedAt(small, "+123456\r\n", 1);
        assertMalformedAt(decoder, "$2147483648\r\n", 1);
    }

    @Test
    void decodeExactlyRejectsTruncatedAndTrailingBytes() {
        RespException truncated =
                assertThrows(RespException.class, () -> decoder.decodeExactly(ascii("$5\r\nab"), 0, 6));
        assertEquals(6, truncated.offset());
        RespException trailing =
                assertThrows(RespException.class, () -> decoder.decodeExactly(ascii(":1\r\n:2\r\n"), 0, 8));
        assertEquals(4, trailing.offset());
    }

    @Test
    void rejectsRangesOutsideTheBuffer() {
        assertThrows(IndexOutOfBoundsException.class, () -> decoder.decode(new byte[4], 2, 3));
        assertThrows(IndexOutOfBoundsException.class, () -> decoder.decode(new byte[4], -1, 1));
    }

    @Test
    void randomReplyTreesRoundTripThroughEncoderAndDecoder() {
        Random random = new Random(42L);
        for (int round = 0; round < 2000; round++) {
            RespValue value = randomValue(random, 0);
            byte[] encoded = RespEncoder.encode(value);
            RespDecoder.Result result = decoder.decode(encoded, 0, encoded.length);
            assertEquals(value, result.value());
            assertEquals(encoded.length, result.consumed());
            assertFalse(
                    decoder.decode(encoded, 0, random.nextInt(encoded.length)).isComplete());
        }
    }

    /** Bounded by {@code depth} in the test only. */
    private static RespValue randomValue(Random random, int depth) {
        switch (random.nextInt(depth < 4 ? 6 : 5)) {
            case 0:
                return RespValue.simpleString("s" + random.nextInt(1000));
            case 1:
                return RespValue.error("ERR code " + random.nextInt());
            case 2:
                return RespValue.integer(random.nextLong());
            case 3:
                byte[] data = new byte[random.nextInt(40)];
                random.nextBytes(data);
                return RespValue.bulkString(data);
            case 4:
                return RespValue.NULL;
            default:
                List<RespValue> elements = new ArrayList<>();
                int size = random.nextInt(5);
                for (int i = 0; i < size; i++) {
                    elements.add(randomValue(random, depth + 1));
                }
                return RespValue.array(elements);
        }
    }

    private static int depthOf(RespValue value) {
        int depth = 0;
        while (value.kind() == RespValue.Kind.ARRAY && !value.elements().isEmpty()) {
            depth++;
            value = value.elements().get(0);
        }
        return value.kind() == RespValue.Kind.ARRAY ? depth + 1 : depth;
    }

    private void assertMalformedAt(String reply, int offset) {
        assertMalformedAt(decoder, reply, offset);
    }

    private static void assertMalformedAt(RespDecoder decoder, String reply, int offset) {
        byte[] data = ascii(reply);
        RespException e =
                assertThrows(RespException.class, () -> decoder.decode(data, 0, data.length), () -> escape(reply));
        assertEquals(offset, e.offset(), () -> escape(reply) + ": " + e.getMessage());
    }

    private RespValue decode(String reply) {
        byte[] data = reply.getBytes(StandardCharsets.UTF_8);
        return decoder.decodeExactly(data, 0, data.length);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static String escape(String text) {
        return text.replace("\r", "\\r").replace("\n", "\\n");
    }
}
