package io.ailb.codec.util;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Utf8Test {
    @Test
    void decodesExactlyAsTheJdkDoes() {
        String[] samples = {
            "",
            "10.0.0.1:8000",
            "{\"health_status\":\"Healthy\"}",
            "h\u00e9llo",
            "\u4e2d\u6587",
            "\ud83d\ude00 emoji",
            "tab\tnul\u0000end"
        };
        for (String sample : samples) {
            byte[] bytes = ("xx" + sample + "yy").getBytes(StandardCharsets.UTF_8);
            assertEquals(sample, Utf8.decode(bytes, 2, bytes.length - 4));
            assertEquals("xx" + sample + "yy", Utf8.decode(bytes));
        }
    }

    @Test
    void invalidBytesAreReplacedAsTheJdkReplacesThem() {
        SplittableRandom random = new SplittableRandom(7);
        for (int n = 0; n < 2000; n++) {
            byte[] bytes = new byte[random.nextInt(12)];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) (random.nextBoolean() ? random.nextInt(128) : random.nextInt(256));
            }
            assertEquals(new String(bytes, StandardCharsets.UTF_8), Utf8.decode(bytes));
        }
    }

    @Test
    void encodesExactlyAsTheJdkDoesIncludingLoneSurrogates() {
        String[] samples = {
            "",
            "EVALSHA abc 3 llb:{r|c}:inflight",
            "h\u00e9llo",
            "\u4e2d\u6587",
            "\ud83d\ude00",
            "lone \ud83d high",
            "lone \ude00 low",
            "\u007f\u0080"
        };
        for (String sample : samples) {
            assertArrayEquals(sample.getBytes(StandardCharsets.UTF_8), Utf8.encode(sample), sample);
            assertEquals(
                    new String(sample.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8),
                    Utf8.decode(Utf8.encode(sample)));
        }
    }

    @Test
    void codePointsMatchTheJdkForEveryRangeOfMixedText() {
        SplittableRandom random = new SplittableRandom(11);
        String[] pieces = {"a", "kv cache ", "\u00e9", "\u4e2d\u6587", "\ud83d\ude00", "\n", "\u07ff", "\uffff"};
        for (int n = 0; n < 500; n++) {
            StringBuilder text = new StringBuilder();
            for (int k = random.nextInt(40); k > 0; k--) {
                text.append(pieces[random.nextInt(pieces.length)]);
            }
            String prefix = "x".repeat(random.nextInt(9));
            byte[] bytes = (prefix + text + "yz").getBytes(StandardCharsets.UTF_8);
            int from = prefix.length();
            int to = bytes.length - 2;
            assertEquals(text.codePointCount(0, text.length()), Utf8.codePoints(bytes, from, to), text.toString());
        }
    }

    @Test
    void codePointsRejectRangesOutsideTheArray() {
        byte[] bytes = new byte[16];
        assertEquals(16, Utf8.codePoints(bytes, 0, 16));
        assertEquals(0, Utf8.codePoints(bytes, 16, 16));
        assertThrows(IndexOutOfBoundsException.class, () -> Utf8.codePoints(bytes, -1, 4));
        assertThrows(IndexOutOfBoundsException.class, () -> Utf8.codePoints(bytes, 9, 17));
        assertThrows(IndexOutOfBoundsException.class, () -> Utf8.codePoints(bytes, 5, 4));
    }
}
