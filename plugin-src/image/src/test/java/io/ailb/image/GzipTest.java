package io.ailb.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class GzipTest {
    private static final byte[] DATA = data();

    @Test
    void theHeaderCarriesNoNameNoCommentAndTimeZero() {
        byte[] gzip = Gzip.compress(DATA);

        assertEquals(0x1f, gzip[0] & 0xff);
        assertEquals(0x8b, gzip[1] & 0xff);
        assertEquals(8, gzip[2], "deflate");
        assertEquals(0, gzip[3], "flags: no name, comment, extra field or header CRC");
        assertArrayEquals(new byte[4], new byte[] {gzip[4], gzip[5], gzip[6], gzip[7]}, "modification time 0");
    }

    @Test
    void theJdkReadsBackTheInputAndTheBytesRepeat() {
        byte[] gzip = Gzip.compress(DATA);

        assertArrayEquals(DATA, Archives.gunzip(gzip));
        assertArrayEquals(gzip, Gzip.compress(DATA));
        assertTrue(gzip.length < DATA.length / 2, "compressed to " + gzip.length + " of " + DATA.length);
    }

    /** 300 KiB of text-like bytes: repetitive enough to compress, longer than one deflate window and buffer. */
    private static byte[] data() {
        SplittableRandom random = new SplittableRandom(13);
        byte[] data = new byte[300 * 1024];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) ('a' + random.nextInt(8));
        }
        return data;
    }
}
