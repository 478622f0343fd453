package io.ailb.codec.resp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

final class RespEncoderTest {

    @Test
    void commandMatchesTheWireFormatHigressSends() {
        byte[] encoded = RespEncoder.command(
                "hincrby",
                "higress:global_least_request_table:ai-route-route-1.internal:outbound|443||provider-2.dns",
                "127.0.0.1:50003",
                "-1");
        assertEquals(
                "*4\r\n$7\r\nhincrby\r\n$89\r\n"
                        + "higress:global_least_request_table:ai-route-route-1.internal:outbound|443||provider-2.dns\r\n"
                        + "$15\r\n127.0.0.1:50003\r\n$2\r\n-1\r\n",
                text(encoded));
    }

    @Test
    void stringArgumentsAreMeasuredInUtf8Bytes() {
        assertEquals("*1\r\n$7\r\n键😀\r\n", text(RespEncoder.command("键😀")));
    }

    @Test
    void binaryArgumentsAreCopiedVerbatimIncludingCrLf() {
        byte[] binary = {0, '\r', '\n', (byte) 0xFF};
        byte[] encoded = RespEncoder.command(List.of("SET".getBytes(StandardCharsets.US_ASCII), binary));
        byte[] expected = concat(
                "*2\r\n$3\r\nSET\r\n$4\r\n".getBytes(StandardCharsets.US_ASCII),
                binary,
                "\r\n".getBytes(StandardCharsets.US_ASCII));
        assertArrayEquals(expected, encoded);
    }

    @Test
    void emptyArgumentAndEmptyCommand() {
        assertEquals("*2\r\n$3\r\nGET\r\n$0\r\n\r\n", text(RespEncoder.command("GET", "")));
        assertEquals("*0\r\n", text(RespEncoder.command()));
    }

    @Test
    void lengthsWithSeveralDigits() {
        char[] big = new char[12345];
        Arrays.fill(big, 'x');
        byte[] encoded = RespEncoder.command(new String(big));
        assertEquals("*1\r\n$12345\r\n", text(Arrays.copyOf(encoded, 12)));
        assertEquals(12 + 12345 + 2, encoded.length);
    }

    @Test
    void encodesEveryReplyKind() {
        assertEquals("+OK\r\n", text(RespEncoder.encode(RespValue.simpleString("OK"))));
        assertEquals(
                "-NOSCRIPT No matching script.\r\n",
                text(RespEncoder.encode(RespValue.error("NOSCRIPT No matching script."))));
        assertEquals(":-42\r\n", text(RespEncoder.encode(RespValue.integer(-42))));
        assertEquals(":0\r\n", text(RespEncoder.encode(RespValue.integer(0))));
        assertEquals(":-9223372036854775808\r\n", text(RespEncoder.encode(RespValue.integer(Long.MIN_VALUE))));
        assertEquals(":9223372036854775807\r\n", text(RespEncoder.encode(RespValue.integer(Long.MAX_VALUE))));
        assertEquals("$3\r\nabc\r\n", text(RespEncoder.encode(RespValue.bulkString("abc"))));
        assertEquals("$-1\r\n", text(RespEncoder.encode(RespValue.NULL)));
        assertEquals("*0\r\n", text(RespEncoder.encode(RespValue.array())));
        assertEquals(
                "*3\r\n:1\r\n*2\r\n$1\r\na\r\n$-1\r\n+x\r\n",
                text(RespEncoder.encode(RespValue.array(
                        RespValue.integer(1),
                        RespValue.array(RespValue.bulkString("a"), RespValue.NULL),
                        RespValue.simpleString("x")))));
    }

    @Test
    void rejectsLineBreaksInSimpleStringsAndErrors() {
        assertThrows(IllegalArgumentException.class, () -> RespEncoder.encode(RespValue.simpleString("a\r\nb")));
        assertThrows(IllegalArgumentException.class, () -> RespEncoder.encode(RespValue.error("ERR\n")));
    }

    private static String text(byte[] data) {
        return new String(data, StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[]... parts) {
        int size = 0;
        for (byte[] part : parts) {
            size += part.length;
        }
        byte[] out = new byte[size];
        int pos = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, out, pos, part.length);
            pos += part.length;
        }
        return out;
    }
}
