package io.ailb.codec.resp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

final class RespValueTest {

    @Test
    void asLongReadsIntegersAndNumericStringsOnly() {
        assertEquals(-5, RespValue.integer(-5).asLong());
        assertEquals(-12, RespValue.bulkString("-12").asLong());
        assertEquals(Long.MAX_VALUE, RespValue.bulkString("9223372036854775807").asLong());
        assertEquals(3, RespValue.simpleString("3").asLong());
        assertThrows(
                IllegalStateException.class, () -> RespValue.bulkString("1.5").asLong());
        assertThrows(IllegalStateException.class, () -> RespValue.bulkString("").asLong());
        assertThrows(IllegalStateException.class, () -> RespValue.bulkString("9223372036854775808")
                .asLong());
        assertThrows(IllegalStateException.class, () -> RespValue.error("1").asLong());
        assertThrows(IllegalStateException.class, () -> RespValue.NULL.asLong());
    }

    @Test
    void asStringDecodesUtf8AndRendersIntegers() {
        assertEquals(
                "キー😀",
                RespValue.bulkString("キー😀".getBytes(StandardCharsets.UTF_8)).asString());
        assertEquals("-7", RespValue.integer(-7).asString());
        assertEquals("ERR x", RespValue.error("ERR x").asString());
        assertNull(RespValue.NULL.asString());
        assertThrows(IllegalStateException.class, () -> RespValue.array().asString());
    }

    @Test
    void bytesCannotBeModifiedThroughFactoryOrAccessor() {
        byte[] data = {1, 2, 3};
        RespValue value = RespValue.bulkString(data);
        data[0] = 9;
        value.asBytes()[1] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, value.asBytes());
        assertThrows(IllegalStateException.class, () -> RespValue.integer(1).asBytes());
    }

    @Test
    void arrayElementsAreACopyAndUnmodifiable() {
        List<RespValue> source = new ArrayList<>(List.of(RespValue.integer(1)));
        RespValue array = RespValue.array(source);
        source.add(RespValue.integer(2));
        assertEquals(1, array.elements().size());
        assertThrows(UnsupportedOperationException.class, () -> array.elements().add(RespValue.NULL));
        assertThrows(NullPointerException.class, () -> RespValue.array(RespValue.NULL, null));
        assertThrows(IllegalStateException.class, () -> RespValue.NULL.elements());
    }

    @Test
    void errorCodeIsTheFirstWordAndEmptyForNonErrors() {
        assertEquals("NOSCRIPT", RespValue.error("NOSCRIPT No matching script.").errorCode());
        assertEquals("WRONGTYPE", RespValue.error("WRONGTYPE").errorCode());
        assertEquals("", RespValue.simpleString("NOSCRIPT x").errorCode());
        assertTrue(RespValue.error("ERR").isError());
        assertFalse(RespValue.simpleString("ERR").isError());
    }

    @Test
    void equalityIsStructural() {
        RespValue a = RespValue.array(RespValue.bulkString("x"), RespValue.array(RespValue.integer(1)));
        RespValue b = RespValue.array(RespValue.bulkString("x"), RespValue.array(RespValue.integer(1)));
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertNotEquals(a, RespValue.array(RespValue.bulkString("x"), RespValue.array(RespValue.integer(2))));
        assertNotEquals(a, RespValue.array(RespValue.bulkString("x")));
        assertNotEquals(RespValue.simpleString("x"), RespValue.bulkString("x"));
        assertNotEquals(RespValue.simpleString("x"), "x");
        // Same pre-order sequence, different shape.
        assertNotEquals(
                RespValue.array(RespValue.array(RespValue.integer(1)), RespValue.integer(2)),
                RespValue.array(RespValue.array(RespValue.integer(1), RespValue.integer(2))));
    }

    @Test
    void toStringIsReadableForLogs() {
        RespValue value = RespValue.array(
                RespValue.simpleString("OK"),
                RespValue.error("ERR bad"),
                RespValue.integer(-3),
                RespValue.bulkString(new byte[] {'a', '"', 0, (byte) 0xE9}),
                RespValue.NULL,
                RespValue.array());
        assertEquals("[+OK, -ERR bad, :-3, \"a\\\"\\x00\\xe9\", nil, []]", value.toString());
    }

    @Test
    void toStringCutsLongStrings() {
        String rendered = RespValue.bulkString(new byte[1000]).toString();
        assertTrue(rendered.endsWith("...(1000 bytes)\""), rendered);
        assertTrue(rendered.length() < 1000, rendered);
    }
}
