package io.ailb.image;

import com.jcraft.jzlib.Deflater;
import com.jcraft.jzlib.GZIPOutputStream;
import com.jcraft.jzlib.JZlib;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * gzip whose bytes depend on the input alone: no file name or comment, modification time 0, and deflate from jzlib
 * (pure Java) rather than the JDK's, which links whatever zlib the platform has and whose output differs between
 * zlib versions and forks.
 */
final class Gzip {
    /** zlib's convention: a 32 KiB window (15 bits) plus 16 for the gzip wrapper. */
    private static final int GZIP_WINDOW_BITS = 15 + 16;

    private static final int BUFFER = 64 * 1024;

    private Gzip() {}

    static byte[] compress(byte[] data) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip =
                new GZIPOutputStream(out, new Deflater(JZlib.Z_BEST_COMPRESSION, GZIP_WINDOW_BITS), BUFFER, true)) {
            gzip.setModifiedTime(0);
            gzip.write(data);
        } catch (IOException e) {
            // Nothing here does I/O: only jzlib's own errors end here.
            throw new UncheckedIOException("gzip failed", e);
        }
        return out.toByteArray();
    }
}
